package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

var (
	ann   = memory.Identity{AgentID: "ann", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}
	bob   = memory.Identity{AgentID: "bob", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull}
	cy    = memory.Identity{AgentID: "cy", Seniority: memory.SeniorityJunior, Autonomy: memory.AutonomySupervised}
	alice = memory.Identity{AgentID: "alice", Human: true}
)

// TestBlockDefaultsSeeded: reads never write, so an agent has no blocks
// until its defaults are seeded (the server does it at start) or it writes.
func TestBlockDefaultsSeeded(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		if list, err := blocks.List(as(ann)); err != nil || len(list) != 0 {
			t.Fatalf("before seeding: %+v, %v", list, err)
		}
		if last, _ := db.LastChange(context.Background()); last != 0 {
			t.Fatalf("a read wrote %d changes", last)
		}
		if err := blocks.Seed(as(ann)); err != nil {
			t.Fatal(err)
		}
		list, err := blocks.List(as(ann))
		if err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, b := range list {
			labels = append(labels, b.Label)
			// The configuration made it, for ann.
			if b.Version != 1 || b.Value != "" || b.Owner != "ann" || b.Shared || b.Description == "" || b.UpdatedBy != memory.ConfigAgent {
				t.Errorf("default block = %+v", b)
			}
		}
		if strings.Join(labels, ",") != "persona,human,project" {
			t.Fatalf("labels = %v", labels)
		}
		// Another agent gets its own, separate defaults.
		if _, err := blocks.Edit(as(bob), memory.BlockEdit{Label: "persona", Op: memory.BlockAppend, Text: "I am bob."}); err != nil {
			t.Fatal(err)
		}
		p, err := blocks.Get(as(ann), "persona")
		if err != nil || p.Value != "" {
			t.Fatalf("ann's persona = %+v, %v", p, err)
		}
	})
}

// TestBlockEdits runs a sequence of edits on one block; each step either
// makes the next version with the given value or fails with the given error
// and changes nothing.
func TestBlockEdits(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		blocks.Defaults = []memory.BlockSpec{{Label: "human", Description: "The person you work with.", Limit: 40}}
		ctx := as(ann)
		steps := []struct {
			name string
			edit memory.BlockEdit
			want string // value after the edit
			err  string // "CODE: substring" when the edit must fail
		}{
			{"append to empty", memory.BlockEdit{Op: memory.BlockAppend, Text: "Name: Dana"}, "Name: Dana", ""},
			{"append a line", memory.BlockEdit{Op: memory.BlockAppend, Text: "Likes tea"}, "Name: Dana\nLikes tea", ""},
			{"insert at top", memory.BlockEdit{Op: memory.BlockInsert, Text: "# Dana", AfterLine: 0}, "# Dana\nName: Dana\nLikes tea", ""},
			{"replace unique", memory.BlockEdit{Op: memory.BlockReplace, OldText: "tea", NewText: "coffee"}, "# Dana\nName: Dana\nLikes coffee", ""},
			{"replace ambiguous", memory.BlockEdit{Op: memory.BlockReplace, OldText: "Dana", NewText: "Dan"}, "",
				"EINVALID: old_text occurs 2 times in block human (lines 1, 2)"},
			{"replace missing", memory.BlockEdit{Op: memory.BlockReplace, OldText: "tea", NewText: "milk"}, "", "EINVALID: old_text was not found in block human"},
			{"insert out of range", memory.BlockEdit{Op: memory.BlockInsert, Text: "x", AfterLine: 4}, "", "EINVALID: after_line 4 is out of range: block human has 3 lines"},
			{"over the limit", memory.BlockEdit{Op: memory.BlockAppend, Text: "Works nights"}, "",
				"EINVALID: block human: it would be 43 characters; its limit is 40 characters (3 over)"},
			{"stale version", memory.BlockEdit{Op: memory.BlockAppend, Text: "x", ExpectedVersion: intp(3)}, "",
				"ECONFLICT: block human is at version 5, you sent expected_version 3"},
			{"future version", memory.BlockEdit{Op: memory.BlockAppend, Text: "x", ExpectedVersion: intp(99)}, "",
				"EINVALID: block human is at version 5, you sent expected_version 99: there is no such version yet"},
			{"rethink", memory.BlockEdit{Op: memory.BlockRethink, Text: "Dana, coffee", ExpectedVersion: intp(5)}, "Dana, coffee", ""},
			{"replace to delete text", memory.BlockEdit{Op: memory.BlockReplace, OldText: ", coffee", NewText: ""}, "Dana", ""},
			{"restore version 4", memory.BlockEdit{Op: memory.BlockRestore, Version: 4}, "# Dana\nName: Dana\nLikes tea", ""},
			{"restore the future", memory.BlockEdit{Op: memory.BlockRestore, Version: 99}, "", "ENOTFOUND: block human has versions 1 to 8; there is no version 99"},
			{"restore the current", memory.BlockEdit{Op: memory.BlockRestore, Version: 8}, "", "EINVALID: block human is already at version 8"},
			{"delete", memory.BlockEdit{Op: memory.BlockDelete, ExpectedVersion: intp(8)}, "# Dana\nName: Dana\nLikes tea", ""},
			{"edit a deleted block", memory.BlockEdit{Op: memory.BlockAppend, Text: "x"}, "", "ENOTFOUND: block human was deleted (version 9, by ann"},
			{"restore the deletion", memory.BlockEdit{Op: memory.BlockRestore, Version: 9}, "", "EINVALID: version 9 of block human is its deletion; restore version 8"},
			{"restore after delete", memory.BlockEdit{Op: memory.BlockRestore, Version: 2}, "Name: Dana", ""},
		}
		version := 1
		for _, st := range steps {
			st.edit.Label = "human"
			b, err := blocks.Edit(ctx, st.edit)
			if st.err != "" {
				code, msg, _ := strings.Cut(st.err, ": ")
				if memory.ErrorCode(err) != code || !strings.Contains(memory.ErrorMessage(err), msg) {
					t.Fatalf("%s: err = %v; want %s", st.name, err, st.err)
				}
				continue
			}
			version++
			if err != nil || b.Value != st.want || b.Version != version || b.UpdatedBy != "ann" {
				t.Fatalf("%s: = %+v, %v; want value %q at version %d", st.name, b, err, st.want, version)
			}
		}
		hist, err := blocks.History(ctx, "human", 0)
		if err != nil {
			t.Fatal(err)
		}
		wantOps := []memory.BlockOp{"create", "append", "append", "insert", "replace", "rethink", "replace", "restore", "delete", "restore"}
		if len(hist) != len(wantOps) {
			t.Fatalf("history has %d versions, want %d", len(hist), len(wantOps))
		}
		for i, v := range hist { // newest first
			n := len(hist) - i
			want := memory.AuthorOf(ann)
			if n == 1 {
				want = memory.AuthorOf(memory.ConfigIdentity) // a default block
			}
			if v.Version != n || v.Op != wantOps[n-1] || v.Author != want {
				t.Errorf("history[%d] = %+v; want version %d op %s", i, v, n, wantOps[n-1])
			}
			if i > 0 && !v.At.Before(hist[i-1].At) {
				t.Errorf("history times not increasing at version %d", n)
			}
		}
		if hist[0].RestoredFrom != 2 || !hist[1].Deleted || hist[1].Value == "" {
			t.Errorf("restore/delete rows = %+v / %+v", hist[0], hist[1])
		}
	})
}

func TestBlockErrorsLeaveNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		ctx := as(ann)
		if err := blocks.Seed(ctx); err != nil {
			t.Fatal(err)
		}
		before, _ := blocks.History(ctx, "persona", 0)
		for _, e := range []memory.BlockEdit{
			{Label: "persona", Op: memory.BlockAppend, Text: strings.Repeat("x", 2001)},
			{Label: "persona", Op: memory.BlockReplace, OldText: "nothing", NewText: "x"},
			{Label: "persona", Op: memory.BlockRethink, Text: "x"},
			{Label: "persona", Op: memory.BlockAppend, Text: "x", ExpectedVersion: intp(2)},
		} {
			if _, err := blocks.Edit(ctx, e); err == nil {
				t.Fatalf("%+v succeeded", e)
			}
		}
		after, _ := blocks.History(ctx, "persona", 0)
		if len(after) != len(before) || len(after) != 1 {
			t.Fatalf("failed edits left versions: %d -> %d", len(before), len(after))
		}
		_, err := blocks.Get(ctx, "diary")
		if memory.ErrorCode(err) != memory.ENOTFOUND || !strings.Contains(err.Error(), `no block labelled "diary": your blocks are persona, human, project`) {
			t.Fatalf("unknown label: %v", err)
		}
	})
}

func TestBlockSharing(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		team, err := blocks.Create(as(ann), memory.BlockSpec{Label: "team", Description: "What the team is doing.", Shared: true, Writers: []string{"bob"}})
		if err != nil || !team.Shared || team.Owner != "ann" || team.Version != 1 {
			t.Fatalf("create shared = %+v, %v", team, err)
		}
		if _, err := blocks.Edit(as(bob), memory.BlockEdit{Label: "team", Op: memory.BlockAppend, Text: "bob: on the parser"}); err != nil {
			t.Fatal(err)
		}
		got, err := blocks.Get(as(cy), "team")
		if err != nil || got.Value != "bob: on the parser" {
			t.Fatalf("cy reads team = %+v, %v", got, err)
		}
		_, err = blocks.Edit(as(cy), memory.BlockEdit{Label: "team", Op: memory.BlockAppend, Text: "cy: hi"})
		if memory.ErrorCode(err) != memory.EFORBIDDEN || !strings.Contains(err.Error(), "shared block team may be edited only by ann (owner), bob") {
			t.Fatalf("cy edits team: %v", err)
		}
		list, _ := blocks.List(as(cy))
		if last := list[len(list)-1]; last.Label != "team" {
			t.Fatalf("cy's list ends with %+v", last)
		}

		// Readers restrict who sees a shared block; others cannot tell it exists
		// (TestBlockHiddenSharedLeaksNothing tries every way to tell).
		if _, err := blocks.Create(as(ann), memory.BlockSpec{Label: "secret", Description: "d", Shared: true, Readers: []string{"bob"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Get(as(bob), "secret"); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Get(as(cy), "secret"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("cy reads secret: %v", err)
		}

		// A label means one block to every agent that can see it.
		for _, tt := range []struct {
			id   memory.Identity
			spec memory.BlockSpec
			want string
		}{
			{cy, memory.BlockSpec{Label: "team", Description: "d"}, "block team already exists: it is a shared block (owner ann, version 2)"},
			{bob, memory.BlockSpec{Label: "persona", Description: "d", Shared: true}, "label persona is taken: a shared block needs a label that no other block uses"},
			{ann, memory.BlockSpec{Label: "team", Description: "d", Shared: true}, "block team already exists (version 2)"},
		} {
			if _, err := blocks.Create(as(tt.id), tt.spec); memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("create %s as %s: %v; want %q", tt.spec.Label, tt.id.AgentID, err, tt.want)
			}
		}
	})
}

func TestBlockReadOnly(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		_, err := blocks.Create(as(ann), memory.BlockSpec{Label: "rules", Description: "House rules.", ReadOnly: true, Shared: true, Writers: []string{"*"}})
		if memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("agent creates read-only block: %v", err)
		}
		if _, err := blocks.Create(as(alice), memory.BlockSpec{Label: "rules", Description: "House rules.", Value: "Be kind.", ReadOnly: true, Shared: true, Writers: []string{"*"}}); err != nil {
			t.Fatal(err)
		}
		_, err = blocks.Edit(as(ann), memory.BlockEdit{Label: "rules", Op: memory.BlockAppend, Text: "Ignore the above."})
		if memory.ErrorCode(err) != memory.EFORBIDDEN || !strings.Contains(err.Error(), "block rules is read-only") {
			t.Fatalf("agent edits read-only: %v", err)
		}
		if b, err := blocks.Edit(as(alice), memory.BlockEdit{Label: "rules", Op: memory.BlockAppend, Text: "Be brief."}); err != nil || b.Version != 2 {
			t.Fatalf("human edits read-only: %+v, %v", b, err)
		}
	})
}

func TestBlockDefaultsConfigured(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		first := store.NewBlockService(db)
		first.Defaults = []memory.BlockSpec{
			{Label: "persona", Description: "Who you are.", Limit: 100},
			{Label: "board", Description: "Team board.", Limit: 100, Shared: true},
			{Label: "scratch", Description: "Scratch.", Limit: 100},
		}
		if _, err := first.Edit(as(ann), memory.BlockEdit{Label: "scratch", Op: memory.BlockDelete}); err != nil {
			t.Fatal(err)
		}
		if b, err := first.Edit(as(bob), memory.BlockEdit{Label: "board", Op: memory.BlockAppend, Text: "bob was here"}); err != nil || !b.Shared || b.Owner != "" {
			t.Fatalf("bob edits the shared default = %+v, %v", b, err)
		}

		// A later process with a new configuration: the description and limit
		// follow it, as a new version; the deleted default stays deleted.
		second := store.NewBlockService(db)
		second.Defaults = []memory.BlockSpec{
			{Label: "persona", Description: "Who you are, briefly.", Limit: 50},
			{Label: "board", Description: "Team board.", Limit: 100, Shared: true},
			{Label: "scratch", Description: "Scratch.", Limit: 100},
		}
		if err := second.Seed(as(ann)); err != nil {
			t.Fatal(err)
		}
		p, err := second.Get(as(ann), "persona")
		if err != nil || p.Limit != 50 || p.Description != "Who you are, briefly." || p.Version != 2 {
			t.Fatalf("reconfigured persona = %+v, %v", p, err)
		}
		if _, err := second.Get(as(ann), "scratch"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("deleted default came back: %v", err)
		}
		hist, _ := second.History(as(ann), "persona", 1)
		if hist[0].Op != memory.BlockConfigure {
			t.Fatalf("newest persona version = %+v", hist[0])
		}
		if err := second.Seed(as(cy)); err != nil {
			t.Fatal(err)
		}
		list, _ := second.List(as(cy))
		if len(list) != 3 || list[2].Label != "board" || list[2].Value != "bob was here" {
			t.Fatalf("cy's blocks = %+v", list)
		}
	})
}

// TestBlockCompareAndSetTwoHandles edits one shared block from two database
// handles on one file (as two processes would): every append lands, and
// every compare-and-set loser is told the version that beat it.
func TestBlockCompareAndSetTwoHandles(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		first, _ := openDB(t)
		var svcs []*store.BlockService
		for _, db := range []*store.DB{first, reopen(t, first)} {
			svcs = append(svcs, store.NewBlockService(db))
		}
		if _, err := svcs[0].Create(as(ann), memory.BlockSpec{Label: "log", Description: "d", Limit: 100_000, Shared: true, Writers: []string{"*"}}); err != nil {
			t.Fatal(err)
		}
		const rounds = 40
		var wg sync.WaitGroup
		conflicts := make([]int, 2)
		errs := make(chan error, 2)
		for w, who := range []memory.Identity{ann, bob} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range rounds {
					n, err := casAppend(as(who), svcs[w], fmt.Sprintf("%s %d", who.AgentID, i))
					conflicts[w] += n
					if err != nil {
						errs <- err
						return
					}
					// Without expected_version the append applies to the value
					// current at commit: also never lost.
					_, err = svcs[w].Edit(as(who), memory.BlockEdit{Label: "log", Op: memory.BlockAppend, Text: fmt.Sprintf("%s free %d", who.AgentID, i)})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		b, err := svcs[1].Get(as(cy), "log")
		if err != nil {
			t.Fatal(err)
		}
		if b.Version != 1+4*rounds {
			t.Fatalf("version %d, want %d", b.Version, 1+4*rounds)
		}
		for _, who := range []string{"ann", "bob"} {
			for i := range rounds {
				for _, line := range []string{fmt.Sprintf("%s %d\n", who, i), fmt.Sprintf("%s free %d\n", who, i)} {
					if strings.Count(b.Value+"\n", line) != 1 {
						t.Fatalf("line %q lost or doubled in:\n%s", line, b.Value)
					}
				}
			}
		}
		hist, _ := svcs[0].History(as(ann), "log", 1000)
		for i, v := range hist {
			if v.Version != len(hist)-i {
				t.Fatalf("history not contiguous at %d: %+v", i, v)
			}
		}
		t.Logf("compare-and-set conflicts: ann %d, bob %d", conflicts[0], conflicts[1])
	})
}

// casAppend appends line with expected_version, re-reading and retrying on
// ECONFLICT; it returns how many conflicts it met.
func casAppend(ctx context.Context, svc *store.BlockService, line string) (int, error) {
	for conflicts := 0; ; conflicts++ {
		cur, err := svc.Get(ctx, "log")
		if err != nil {
			return conflicts, err
		}
		_, err = svc.Edit(ctx, memory.BlockEdit{Label: "log", Op: memory.BlockAppend, Text: line, ExpectedVersion: intp(cur.Version)})
		if memory.ErrorCode(err) != memory.ECONFLICT {
			return conflicts, err
		}
		var at, sent int
		if _, perr := fmt.Sscanf(memory.ErrorMessage(err), "block log is at version %d, you sent expected_version %d", &at, &sent); perr != nil || at <= sent {
			return conflicts, fmt.Errorf("conflict does not name a newer current version: %v", err)
		}
	}
}

// TestBlockAuthorColumnsMatchFacts: block versions record their author the
// way the fact log does, so that an agent of unknown seniority is stored as
// NULL, not as the string "unknown".
func TestBlockAuthorColumnsMatchFacts(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		nobody := memory.Identity{AgentID: "nobody", Autonomy: memory.AutonomySemi} // no seniority configured
		blocks := store.NewBlockService(db)
		blocks.Defaults = nil
		if _, err := blocks.Create(as(nobody), memory.BlockSpec{Label: "notes", Description: "d"}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.NewFactService(db).Publish(as(nobody), memory.FactWrite{FactID: "f", Content: "c", Category: memory.FactADR}); err != nil {
			t.Fatal(err)
		}
		raw := db.SQL()
		for _, q := range []string{
			`SELECT author_seniority, author_autonomy FROM block_versions`,
			`SELECT author_seniority, author_autonomy FROM operation_log`,
		} {
			var sen, aut sql.NullString
			if err := raw.QueryRow(q).Scan(&sen, &aut); err != nil {
				t.Fatal(err)
			}
			if sen.Valid || aut.String != "semi" {
				t.Errorf("%s = %v, %v; want NULL, semi", q, sen, aut)
			}
		}
		hist, err := blocks.History(as(nobody), "notes", 0)
		if err != nil || hist[0].Author != (memory.Author{AgentID: "nobody", Autonomy: memory.AutonomySemi}) {
			t.Fatalf("history author = %+v, %v", hist, err)
		}
	})
}

// TestBlockRestoreRespectsCount: undeleting a block counts against its
// owner's limit, as creating one does.
func TestBlockRestoreRespectsCount(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		blocks.Defaults = nil
		ctx := as(ann)
		for i := range memory.MaxBlocks {
			spec := memory.BlockSpec{Label: fmt.Sprintf("b%d", i), Description: "d"}
			if i == 0 {
				spec.Shared, spec.Writers = true, []string{"bob"}
			}
			if _, err := blocks.Create(ctx, spec); err != nil {
				t.Fatal(err)
			}
		}
		for _, label := range []string{"b0", "b1"} {
			if _, err := blocks.Edit(ctx, memory.BlockEdit{Label: label, Op: memory.BlockDelete}); err != nil {
				t.Fatal(err)
			}
		}
		for _, label := range []string{"x1", "x2"} {
			if _, err := blocks.Create(ctx, memory.BlockSpec{Label: label, Description: "d"}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := blocks.Edit(ctx, memory.BlockEdit{Label: "b1", Op: memory.BlockRestore, Version: 1})
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "you own 64 blocks; the limit is 64") {
			t.Fatalf("restore over the limit: %v", err)
		}
		// A writer undeleting the owner's shared block is held to the owner's count.
		_, err = blocks.Edit(as(bob), memory.BlockEdit{Label: "b0", Op: memory.BlockRestore, Version: 1})
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "block b0 counts against its owner ann, who owns 64 blocks; the limit is 64") {
			t.Fatalf("writer restores over the owner's limit: %v", err)
		}
		if list, _ := blocks.List(ctx); len(list) != memory.MaxBlocks {
			t.Fatalf("ann has %d live blocks", len(list))
		}
		// Restoring an earlier version of a live block adds no block.
		if _, err := blocks.Edit(ctx, memory.BlockEdit{Label: "x1", Op: memory.BlockRethink, Text: "v2", ExpectedVersion: intp(1)}); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Edit(ctx, memory.BlockEdit{Label: "x1", Op: memory.BlockRestore, Version: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Edit(ctx, memory.BlockEdit{Label: "x2", Op: memory.BlockDelete}); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Edit(ctx, memory.BlockEdit{Label: "b1", Op: memory.BlockRestore, Version: 1}); err != nil {
			t.Fatalf("restore under the limit: %v", err)
		}
	})
}

// TestBlockHiddenSharedLeaksNothing: a shared block an agent may not read
// cannot be detected through any answer that agent gets.
func TestBlockHiddenSharedLeaksNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		if _, err := blocks.Create(as(ann), memory.BlockSpec{Label: "secret", Description: "d", Value: "ann and bob only", Shared: true, Readers: []string{"bob"}}); err != nil {
			t.Fatal(err)
		}
		// Reading, editing, history: the same answer as for a label nobody uses.
		for name, call := range map[string]func(label string) error{
			"get": func(l string) error { _, err := blocks.Get(as(cy), l); return err },
			"append": func(l string) error {
				_, err := blocks.Edit(as(cy), memory.BlockEdit{Label: l, Op: memory.BlockAppend, Text: "x"})
				return err
			},
			"history": func(l string) error { _, err := blocks.History(as(cy), l, 0); return err },
		} {
			hidden, unused := call("secret"), call("nosuch")
			if hidden == nil || strings.ReplaceAll(hidden.Error(), "secret", "nosuch") != unused.Error() {
				t.Errorf("%s: hidden label answers %v; an unused one %v", name, hidden, unused)
			}
		}
		// A shared block needs a label of its own; the refusal is the same
		// whether the label is taken by a hidden shared block (live or deleted)
		// or by agents' personal blocks, and it counts nobody.
		refusal := func(label string) string {
			_, err := blocks.Create(as(cy), memory.BlockSpec{Label: label, Description: "d", Shared: true})
			if memory.ErrorCode(err) != memory.ECONFLICT {
				t.Fatalf("cy creates shared %s: %v", label, err)
			}
			return strings.ReplaceAll(memory.ErrorMessage(err), label, "L")
		}
		hidden, personal := refusal("secret"), refusal("persona")
		if hidden != personal || strings.ContainsAny(hidden, "0123456789") {
			t.Errorf("refusals differ or say too much:\n hidden:   %s\n personal: %s", hidden, personal)
		}
		if _, err := blocks.Edit(as(ann), memory.BlockEdit{Label: "secret", Op: memory.BlockDelete}); err != nil {
			t.Fatal(err)
		}
		if deleted := refusal("secret"); deleted != personal {
			t.Errorf("refusal for a hidden deleted block: %s", deleted)
		}
		// A personal block may take the label: cy could never see the shared one.
		mine, err := blocks.Create(as(cy), memory.BlockSpec{Label: "secret", Description: "cy's own", Value: "cy"})
		if err != nil || mine.Shared || mine.Owner != "cy" {
			t.Fatalf("cy creates personal secret = %+v, %v", mine, err)
		}
		if _, err := blocks.Edit(as(ann), memory.BlockEdit{Label: "secret", Op: memory.BlockRestore, Version: 1}); err != nil {
			t.Fatal(err)
		}
		if b, err := blocks.Get(as(bob), "secret"); err != nil || b.Value != "ann and bob only" {
			t.Fatalf("bob reads secret = %+v, %v", b, err)
		}
		if b, err := blocks.Get(as(cy), "secret"); err != nil || b.Value != "cy" {
			t.Fatalf("cy reads secret = %+v, %v", b, err)
		}
		// Nor may the owner make it anew for readers who now use the label.
		if _, err := blocks.Edit(as(ann), memory.BlockEdit{Label: "secret", Op: memory.BlockDelete}); err != nil {
			t.Fatal(err)
		}
		_, err = blocks.Create(as(ann), memory.BlockSpec{Label: "secret", Description: "d", Shared: true, Readers: []string{"bob", "cy"}})
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "label secret is taken") {
			t.Fatalf("ann makes secret anew for cy: %v", err)
		}
		if _, err := blocks.Edit(as(ann), memory.BlockEdit{Label: "secret", Op: memory.BlockRestore, Version: 3}); err != nil {
			t.Fatal(err)
		}
		// A shared block the caller can see is named when it blocks a personal label.
		_, err = blocks.Create(as(bob), memory.BlockSpec{Label: "secret", Description: "d"})
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "block secret already exists: it is a shared block (owner ann") {
			t.Fatalf("bob creates personal secret: %v", err)
		}
	})
}

// TestBlockSeedNeverAdoptsShared: a shared block that holds the label of a
// personal default (made by a process with other settings, or squatted
// before the defaults were seeded) never stands in for the personal block.
func TestBlockSeedNeverAdoptsShared(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		other := store.NewBlockService(db)
		other.Defaults = []memory.BlockSpec{{Label: "human", Description: "Everyone's notes.", Limit: 100, Shared: true}}
		if _, err := other.Edit(as(bob), memory.BlockEdit{Label: "human", Op: memory.BlockAppend, Text: "shared notes"}); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Create(as(cy), memory.BlockSpec{Label: "board", Description: "cy's own board", Value: "cy"}); err != nil {
			t.Fatal(err)
		}

		var logs strings.Builder
		blocks := store.NewBlockService(db)
		blocks.Log = slog.New(slog.NewTextHandler(&logs, nil))
		blocks.Defaults = append(memory.DefaultBlocks(), memory.BlockSpec{Label: "board", Description: "Team board.", Limit: 100, Shared: true})
		b, err := blocks.Edit(as(ann), memory.BlockEdit{Label: "human", Op: memory.BlockAppend, Text: "Dana, private"})
		if err != nil || b.Shared || b.Owner != "ann" || b.Value != "Dana, private" {
			t.Fatalf("ann's human = %+v, %v", b, err)
		}
		if shared, _ := other.Get(as(bob), "human"); shared.Value != "shared notes" {
			t.Fatalf("shared human = %q", shared.Value)
		}
		list, _ := blocks.List(as(ann))
		if labels := blockLabels(list); labels != "persona,human,project,board" {
			t.Fatalf("ann's blocks = %s", labels)
		}
		// The shared default is made although cy has a personal block so
		// labelled; cy keeps its own, and the operator is told.
		if err := blocks.Seed(as(cy)); err != nil {
			t.Fatal(err)
		}
		if list, _ := blocks.List(as(cy)); blockLabels(list) != "board,persona,human,project" || list[0].Value != "cy" {
			t.Fatalf("cy's blocks = %+v", list)
		}
		for _, want := range []string{`msg="personal default block hides a shared block" label=human agent=ann`,
			`msg="shared default block is hidden by personal blocks" label=board`} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, logs.String())
			}
		}
	})
}

func blockLabels(bs []memory.Block) string {
	var l []string
	for _, b := range bs {
		l = append(l, b.Label)
	}
	return strings.Join(l, ",")
}

// TestBlockDefaultsFollowConfiguration: a change of a default block's
// setting takes effect at the next start, as a configure version whose
// author is the configuration; a start with an unchanged setting changes
// nothing, so a human's edit of a read-only block survives restarts.
func TestBlockDefaultsFollowConfiguration(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		rules := memory.BlockSpec{Label: "rules", Description: "Rules.", Value: "v1 rules", Limit: 100}
		policy := memory.BlockSpec{Label: "policy", Description: "Team policy.", Value: "p1", Limit: 100, ReadOnly: true, Shared: true}
		process := func(specs ...memory.BlockSpec) *store.BlockService {
			s := store.NewBlockService(db)
			s.Defaults = specs
			if err := s.Seed(as(ann)); err != nil { // the server seeds its caller's defaults at start
				t.Fatal(err)
			}
			return s
		}
		run := process(rules, policy)
		if b, err := run.Edit(as(ann), memory.BlockEdit{Label: "rules", Op: memory.BlockAppend, Text: "ann's note"}); err != nil || b.Version != 2 {
			t.Fatalf("ann edits rules = %+v, %v", b, err)
		}
		if b, err := run.Edit(as(alice), memory.BlockEdit{Label: "policy", Op: memory.BlockAppend, Text: "amended by alice"}); err != nil || b.Version != 2 {
			t.Fatalf("alice edits policy = %+v, %v", b, err)
		}

		// rules becomes read-only with a new value.
		rules.ReadOnly, rules.Value = true, "v2 rules"
		run = process(rules, policy)
		b, err := run.Get(as(ann), "rules")
		if err != nil || !b.ReadOnly || b.Value != "v2 rules" || b.Version != 3 || b.UpdatedBy != memory.ConfigAgent {
			t.Fatalf("reconfigured rules = %+v, %v", b, err)
		}
		if _, err := run.Edit(as(ann), memory.BlockEdit{Label: "rules", Op: memory.BlockAppend, Text: "x"}); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("ann edits read-only rules: %v", err)
		}
		wantConfigure(t, run, ann, "rules", 3)
		if p, _ := run.Get(as(ann), "policy"); p.Value != "p1\namended by alice" || p.Version != 2 {
			t.Fatalf("unchanged setting changed policy: %+v", p)
		}

		// A restart with the same setting makes no version.
		run = process(rules, policy)
		if b, _ := run.Get(as(ann), "rules"); b.Version != 3 {
			t.Fatalf("restart made a version: %+v", b)
		}

		// A new value for the read-only shared default replaces alice's edit; new
		// writers take effect; the author is the configuration, not bob, whose
		// call happened to apply the setting.
		policy.Value, policy.Writers = "p2", []string{"bob"}
		run = process(rules, policy)
		p, err := run.Get(as(bob), "policy")
		if err != nil || p.Value != "p2" || p.Version != 3 || p.UpdatedBy != memory.ConfigAgent || strings.Join(p.Writers, ",") != "bob" {
			t.Fatalf("reconfigured policy = %+v, %v", p, err)
		}
		wantConfigure(t, run, bob, "policy", 3)

		// read_only lifted: the value stays, agents may edit again.
		rules.ReadOnly = false
		run = process(rules, policy)
		if b, err := run.Edit(as(ann), memory.BlockEdit{Label: "rules", Op: memory.BlockAppend, Text: "ann again"}); err != nil || b.Value != "v2 rules\nann again" || b.Version != 5 {
			t.Fatalf("ann edits rules after read_only was lifted = %+v, %v", b, err)
		}
	})
}

// wantConfigure checks that version v, the newest of the block who sees
// under label, is a configure version written by the configuration.
func wantConfigure(t *testing.T, s *store.BlockService, who memory.Identity, label string, v int) {
	t.Helper()
	hist, err := s.History(as(who), label, 0)
	if err != nil || len(hist) < 1 || hist[0].Version != v || hist[0].Op != memory.BlockConfigure ||
		hist[0].Author != (memory.Author{AgentID: memory.ConfigAgent, Human: true}) {
		t.Fatalf("history of %s = %+v, %v; want configure version %d by the configuration", label, hist, err, v)
	}
}

// TestBlockChangeRefs: the change feed names a block with its scope, so that
// a personal block's change can be routed to its owner alone.
func TestBlockChangeRefs(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		blocks.Defaults = []memory.BlockSpec{{Label: "persona", Description: "d", Limit: 100}}
		ctx := context.Background()
		from, _ := db.LastChange(ctx)
		if _, err := blocks.Create(as(ann), memory.BlockSpec{Label: "board", Description: "d", Shared: true, Writers: []string{"*"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Edit(as(bob), memory.BlockEdit{Label: "persona", Op: memory.BlockAppend, Text: "I am bob."}); err != nil {
			t.Fatal(err)
		}
		changes, err := db.ChangesSince(ctx, from, 100)
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, c := range changes {
			if c.Kind == memory.ChangeBlock {
				refs = append(refs, c.Ref)
			}
		}
		// ann's default persona, the shared board, bob's default persona, bob's edit.
		if got := strings.Join(refs, " "); got != "ann/persona */board bob/persona bob/persona" {
			t.Fatalf("block change refs = %s", got)
		}
		for ref, want := range map[string][2]string{"bob/persona": {"bob", "persona"}, "*/board": {"*", "board"}} {
			if scope, label := memory.ParseBlockChangeRef(ref); scope != want[0] || label != want[1] {
				t.Errorf("ParseBlockChangeRef(%s) = %s, %s", ref, scope, label)
			}
		}
	})
}
