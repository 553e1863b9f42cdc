package probe

import (
	"regexp"
	"testing"
)

// TestRandomTaskIDs: task ids read ahead from crypto/rand are never handed out twice,
// across refills of the read-ahead buffer, and keep their form.
func TestRandomTaskIDs(t *testing.T) {
	form := regexp.MustCompile(`^a2abind-probe-[0-9a-f]{24}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := randomTaskID()
		if !form.MatchString(id) || seen[id] {
			t.Fatalf("randomTaskID() = %q: malformed or seen before", id)
		}
		seen[id] = true
	}
}
