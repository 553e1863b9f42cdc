package wording

import "strings"

// JoinAnd lists parts as prose: "a", "a and b", "a, b and c".
func JoinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
