package gate_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/gate"
	"github.com/memory-mcp/memory-mcp/store"
)

// plainHash is the unkeyed hash of a call's tool and arguments, as builds
// before the keyed one stored it.
func plainHash(tool string, args []byte) string {
	sum := sha256.Sum256(append(append([]byte(tool), 0), args...))
	return hex.EncodeToString(sum[:])
}

// A key's stored args_hash is keyed with the provenance key: it is not the
// SHA-256 of the call (which would let anyone with the file confirm a
// guessed text an erase named), and a repeat still replays.
func TestArgsHashIsKeyed(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		ctx := context.Background()
		if err := f.db.UseProvenanceKey(ctx, bytes.Repeat([]byte{7}, 32)); err != nil {
			t.Fatal(err)
		}
		first, _, err := f.remember(ann, "k-keyed", "The vault combination is 31-07-44.")
		if err != nil {
			t.Fatal(err)
		}
		rec, ok, err := f.db.LookupKey(ctx, ann.Principal(), "k-keyed")
		if err != nil || !ok {
			t.Fatalf("key: %v, %v", ok, err)
		}
		args, _ := json.Marshal(map[string]any{"content": "The vault combination is 31-07-44."})
		if rec.ArgsHash == plainHash("remember", args) || len(rec.ArgsHash) != 64 {
			t.Fatalf("args_hash %q is the plain SHA-256 of the call", rec.ArgsHash)
		}
		// Under another key the same call hashes otherwise: the hash depends
		// on the key, so the file alone cannot confirm a guess.
		other := newFixture(t)
		if err := other.db.UseProvenanceKey(ctx, bytes.Repeat([]byte{8}, 32)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := other.remember(ann, "k-keyed", "The vault combination is 31-07-44."); err != nil {
			t.Fatal(err)
		}
		if rec2, _, err := other.db.LookupKey(ctx, ann.Principal(), "k-keyed"); err != nil || rec2.ArgsHash == rec.ArgsHash {
			t.Fatalf("the same call under two provenance keys: %q and %q (%v); want them apart", rec.ArgsHash, rec2.ArgsHash, err)
		}
		again, _, err := f.remember(ann, "k-keyed", "The vault combination is 31-07-44.")
		if err != nil || string(mustJSON(t, again)) != string(mustJSON(t, first)) {
			t.Fatalf("repeat: %v, %v; want the first result %v", again, err, first)
		}
		if _, _, err := f.remember(ann, "k-keyed", "The vault combination is 99-00-11."); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("the key with other arguments: %v", err)
		}
	})
}

// A key an earlier build stored with the plain hash still replays after
// the upgrade, and still refuses other arguments.
func TestPlainArgsHashStillReplays(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		ctx := context.Background()
		if err := f.db.UseProvenanceKey(ctx, bytes.Repeat([]byte{9}, 32)); err != nil {
			t.Fatal(err)
		}
		// The call as an earlier build's gate ran it: its key claimed with the
		// plain hash in the write's transaction, its result kept after.
		args, _ := json.Marshal(map[string]any{"content": "The boiler is serviced in May."})
		call := &store.Call{Principal: ann.Principal(), Tool: "remember", Key: "k-old", ArgsHash: plainHash("remember", args),
			KeyTTL: gate.DefaultKeyTTL, Started: f.db.Now(), Gates: map[string]time.Duration{}}
		r, err := f.mem.Remember(store.WithCall(memory.WithIdentity(ctx, ann), call), memory.EntryWrite{Content: "The boiler is serviced in May."})
		if err != nil {
			t.Fatal(err)
		}
		first := map[string]any{"id": r.ID, "outcome": r.Outcome}
		if err := f.db.FinishCall(ctx, call, store.Ending{Gate: "service", Result: mustJSON(t, first), Text: "remembered " + r.ID}); err != nil {
			t.Fatal(err)
		}
		if rec, _, _ := f.db.LookupKey(ctx, ann.Principal(), "k-old"); rec.ArgsHash != plainHash("remember", args) {
			t.Fatalf("the key was not stored as an earlier build stored it: %q", rec.ArgsHash)
		}
		again, _, err := f.remember(ann, "k-old", "The boiler is serviced in May.")
		if err != nil || string(mustJSON(t, again)) != string(mustJSON(t, first)) {
			t.Fatalf("repeat of a key stored with the plain hash: %v, %v; want the first result %v", again, err, first)
		}
		if _, _, err := f.remember(ann, "k-old", "The boiler is serviced in June."); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("a key stored with the plain hash, other arguments: %v", err)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
