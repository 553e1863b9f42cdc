package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func init() { register(newCmdVersion) }

// versionOptions are the options of `a2abind version`: only the global ones.
type versionOptions struct {
	g *globals
}

// newCmdVersion builds the version command; runF, when not nil, replaces versionRun.
func newCmdVersion(g *globals, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{g: g}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the a2abind version and the a2a-go SDK it is built on",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
}

// versionRun prints the a2abind version and the a2a-go module version it was built with.
func versionRun(opts *versionOptions) error {
	g := opts.g
	sdk := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/a2aproject/a2a-go/v2" {
				sdk = dep.Version
			}
		}
	}
	if g.json() {
		return g.writeJSON(map[string]string{"version": Version, "a2aGo": sdk})
	}
	_, err := fmt.Fprintf(g.stdout, "a2abind %s (a2a-go %s)\n", Version, sdk)
	return err
}
