package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newVersionCmd) }

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the a2abind version and the a2a-go SDK it is built on",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
		},
	}
}
