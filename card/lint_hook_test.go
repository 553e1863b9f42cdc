package card_test

import (
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
)

func init() { card.Lint = lint.Lint }
