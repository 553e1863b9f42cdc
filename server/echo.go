package server

import "github.com/a2abind/a2abind/internal/echo"

// Echo is the AgentExecutor `a2abind serve` runs by default: it completes every task
// with one artifact echoing the text of the user's message, after a working status
// update (so streams see several events).
type Echo = echo.Executor

// EchoSkill is the skill the derived card declares for Echo.
var EchoSkill = echo.Skill
