// Command a2abind checks that an A2A agent's card matches what its sockets serve.
package main

import (
	"os"

	"github.com/a2abind/a2abind/internal/cli"
)

func main() { os.Exit(cli.Execute()) }
