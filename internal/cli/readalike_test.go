package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/internal/echo"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/wire"
)

// TestEveryCommandReadsTestdataAlike (issue 17): lint, send (the delegate), serve and
// guard's normalizer read every card in testdata/cards as card.Parse does: the same
// interfaces, or the same refusal.
func TestEveryCommandReadsTestdataAlike(t *testing.T) {
	files, err := filepath.Glob(cardPath("*.json"))
	if err != nil || len(files) < 20 {
		t.Fatalf("testdata cards: %v (%d)", err, len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, parseErr := card.Parse(raw)

			// lint
			code, out, _ := runCLI(t, "", "lint", file, "-o", "json")
			var got struct {
				Card *card.Card `json:"card"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("lint -o json: %v\n%s", err, out)
			}
			if parseErr != nil {
				if got.Card != nil || code == ExitOK {
					t.Errorf("lint read a card Parse refuses (%v): exit %d", parseErr, code)
				}
			} else if got.Card == nil || !cmp.Equal(want.Interfaces, got.Card.Interfaces, cmpopts.EquateEmpty()) {
				t.Errorf("lint reads %+v, Parse %+v", got.Card, want.Interfaces)
			}

			// send: the delegate loads the card itself
			client, err := delegate.New(context.Background(), file)
			switch {
			case parseErr != nil:
				if err == nil || !errors.Is(err, card.ErrMalformed) {
					t.Errorf("the delegate read a card Parse refuses: %v", err)
				}
			case err == nil:
				if !cmp.Equal(want.Interfaces, client.Card().Interfaces, cmpopts.EquateEmpty()) {
					t.Errorf("the delegate reads %+v, Parse %+v", client.Card().Interfaces, want.Interfaces)
				}
				_ = client.Close()
			case errors.Is(err, card.ErrMalformed):
				t.Errorf("the delegate refuses a card Parse reads: %v", err)
			}

			// serve --card: the reader's refusals are serve's (exit 1 for an ambiguous card)
			_, serr := server.New(echo.Executor{}, server.WithCardJSON(raw), server.WithHTTPAddr("127.0.0.1:0"))
			if parseErr != nil && !errors.Is(serr, card.ErrMalformed) {
				t.Errorf("serve accepted a card Parse refuses (%v): %v", parseErr, serr)
			}
			if parseErr == nil && len(want.ReadIssues()) > 0 && !errors.Is(serr, card.ErrAmbiguous) {
				t.Errorf("serve published a card with stray members: %v", serr)
			}
			if parseErr == nil && errors.Is(serr, card.ErrMalformed) {
				t.Errorf("serve refuses as malformed a card Parse reads: %v", serr)
			}

			// guard: the normalizer's own JSON editor, with every interface served, keeps
			// exactly the interfaces Parse read
			if parseErr != nil || len(want.Interfaces) == 0 {
				return
			}
			var results []probe.Result
			for _, i := range want.Interfaces {
				results = append(results, probe.Result{Interface: i, Outcome: wire.Served})
			}
			nz, err := guard.Normalize(want, results)
			if err != nil {
				t.Fatalf("guard.Normalize: %v", err)
			}
			again, err := card.Parse(nz.Document)
			if err != nil || !cmp.Equal(want.Interfaces, again.Interfaces, cmpopts.EquateEmpty()) {
				t.Errorf("guard publishes %v (%v), Parse read %+v", again, err, want.Interfaces)
			}
		})
	}
}
