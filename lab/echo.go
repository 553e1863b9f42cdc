package lab

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/internal/echo"
)

// Echo is the executor lab agents run unless WithExecutor says otherwise: the same echo
// agent `a2abind serve` runs, so lab agents and the guarded server answer alike.
type Echo = echo.Executor

// Echo's card description: what a card derived for Echo names it, describes it and
// declares it can do (for server.WithAgentInfo).
const (
	EchoName        = echo.Name
	EchoDescription = echo.Description
	EchoVersion     = echo.Version
)

// EchoSkill is the skill a card declares for Echo.
var EchoSkill = echo.Skill

// MessageText joins the text parts of a message with spaces.
func MessageText(m *a2a.Message) string { return echo.MessageText(m) }
