// Package lint checks an AgentCard document before any socket is touched: one table of
// rules (Rules), each with a stable code, severity and fix, applied by Lint to a card
// read by package card, including what package signature found of its signatures.
// Findings are card.Finding values; the codes are this package's Code... constants,
// apart from those the reader itself reports (card.CodeMemberDuplicate and friends).
package lint
