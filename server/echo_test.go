package server

import "github.com/a2abind/a2abind/internal/echo"

// Echo is the executor the package's tests serve.
type Echo = echo.Executor

// echoInfo is the agent info of the derived cards the package's tests publish.
var echoInfo = WithAgentInfo(echo.Name, echo.Description, echo.Version, echo.Skill)
