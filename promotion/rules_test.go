package promotion_test

import (
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/promotion"
)

func TestRules(t *testing.T) {
	tests := []struct {
		note memory.Note
		want string // "bucket/op target | text | state | reason | ref | aliases", or "ignore: part of the rationale"
	}{
		{memory.Note{Text: "issue: pandas import fails"}, "issues/upsert  | pandas import fails |  |  |  | "},
		{memory.Note{Text: "Issue : pandas_import: pandas import fails"}, "issues/upsert pandas_import | pandas import fails |  |  |  | "},
		{memory.Note{Text: "issue: build: failing on arm"}, "issues/upsert  | build: failing on arm |  |  |  | "},
		{memory.Note{Text: "BLOCKER: disk full"}, "issues/upsert  | disk full |  |  |  | blocker"},
		{memory.Note{Text: "fixed: the earlier blocker"}, "issues/resolve  |  |  | the earlier blocker | the earlier blocker | "},
		{memory.Note{Text: "resolved: pandas_import by pinning 2.1"}, "issues/resolve pandas_import |  |  | pandas_import by pinning 2.1 | pandas_import | "},
		{memory.Note{Text: "fixed: the login flake, but db_timeout is still open"}, "issues/resolve  |  |  | the login flake, but db_timeout is still open | the login flake | "},
		{memory.Note{Text: "fixed: not db_timeout, still failing"}, "ignore: denies the change"},
		{memory.Note{Text: "resolved: nothing yet"}, "ignore: denies the change"},
		{memory.Note{Text: "lifted constraint: no network in CI"}, "constraints/invalidate  |  |  | no network in CI | no network in CI | "},
		{memory.Note{Text: "lifted constraint: never run migrations on Fridays"}, "constraints/invalidate  |  |  | never run migrations on Fridays | never run migrations on Fridays | "},
		{memory.Note{Text: "decision: use Go"}, "decisions/append  | use Go |  |  |  | "},
		{memory.Note{Text: "reverted decision: use Go"}, "decisions/invalidate  |  |  | use Go | use Go | "},
		{memory.Note{Text: "superseded: use_go"}, "decisions/invalidate use_go |  |  | use_go | use_go | "},
		{memory.Note{Text: "constraint: no network in CI"}, "constraints/upsert  | no network in CI |  |  |  | "},
		{memory.Note{Text: "lifted constraint: no network"}, "constraints/invalidate  |  |  | no network | no network | "},
		{memory.Note{Text: "plan: ship it"}, "plan/upsert main | ship it |  |  |  | "},
		{memory.Note{Text: "result: acc 0.9", TaskID: "Eval.1"}, "results/append  | acc 0.9 |  |  |  | "},
		{memory.Note{Text: "task t.12: blocked on review"}, "task_state/upsert t__2e12 |  | blocked on review |  |  | "},
		{memory.Note{Text: "task T_12: done"}, "task_state/upsert t__5f12 |  | done |  |  | "},
		{memory.Note{Text: "task build:7: done"}, "task_state/upsert build__3a7 |  | done |  |  | "},
		{memory.Note{Text: "task 日本: running"}, "task_state/upsert 日本 |  | running |  |  | "},
		{memory.Note{Text: "Task force: we must not deploy on fridays"}, "constraints/upsert  | we must not deploy on fridays |  |  |  | "},
		{memory.Note{Text: "task T-12: blocked\nwaiting on bob"}, "task_state/upsert t_12 | waiting on bob | blocked |  |  | "},
		{memory.Note{Text: "task: done", TaskID: "build-7"}, "task_state/upsert build_7 |  | done |  |  | "},
		{memory.Note{Text: "learned: pin pandas"}, "learnings/append  | pin pandas |  |  |  | "},
		{memory.Note{Text: "learning: pin pandas"}, "learnings/append  | pin pandas |  |  |  | "},
		{memory.Note{Text: "* learned: bullets are fine"}, "learnings/append  | bullets are fine |  |  |  | "},
		{memory.Note{Text: "[issues/resolve pandas_import] pinned"}, "issues/resolve pandas_import |  |  | pinned | pinned | "},
		{memory.Note{Text: "[Task_State/Upsert build_7] green"}, "task_state/upsert build_7 |  | green |  |  | "},
		{memory.Note{Text: "[plan/upsert] the plan\nin two lines"}, "plan/upsert main | the plan\nin two lines |  |  |  | "},
		{memory.Note{Text: "[nope/x] y"}, "nope/x  | y |  |  |  | "},
		{memory.Note{Text: "[tool_result output follows]"}, "ignore: no explicit form"},
		// The rules read tool output's forms as written; the pipeline holds every
		// tool write but results and learnings for a curator (see a09).
		{memory.Note{Text: "fixed: x", Kind: memory.NoteToolResult}, "issues/resolve  |  |  | x | x | "},
		{memory.Note{Text: "The build is fixed", Kind: memory.NoteToolResult}, "ignore: tool output"},
		{memory.Note{Text: "task"}, "ignore: too short"},
		{memory.Note{Text: "The earlier blocker is fixed."}, "issues/resolve  |  |  | The earlier blocker is fixed | The earlier blocker | "},
		{memory.Note{Text: "We finally fixed the flaky auth test"}, "issues/resolve  |  |  | We finally fixed the flaky auth test | the flaky auth test | "},
		{memory.Note{Text: "The flaky auth test is not fixed."}, "ignore: no explicit form"},
		{memory.Note{Text: "The flaky test is fixed, but not the auth one"}, "ignore: negated"},
		{memory.Note{Text: "The login flake is fixed, db_timeout remains."}, "issues/resolve  |  |  | The login flake is fixed, db_timeout remains | The login flake | "},
		{memory.Note{Text: "The workaround for the login crash is gone."}, "ignore: no explicit form"},
		{memory.Note{Text: "The plan is unclear to me."}, "ignore: no explicit form"},
		{memory.Note{Text: "Never mind, I found the file."}, "ignore: no explicit form"},
		{memory.Note{Text: "Nothing is broken after the upgrade."}, "ignore: negated"},
		{memory.Note{Text: "I chose to read the logs first."}, "ignore: no explicit form"},
		{memory.Note{Text: "Bob asked whether we reverted the decision to use postgres."}, "ignore: reported speech"},
		{memory.Note{Text: "Alice said the CI pipeline is broken."}, "ignore: reported speech"},
		{memory.Note{Text: "We reverted the decision to use postgres."}, "decisions/invalidate  |  |  | We reverted the decision to use postgres | use postgres | "},
		{memory.Note{Text: "The login crash is almost fixed."}, "ignore: hedged"},
		{memory.Note{Text: "The login crash is fixed or not"}, "ignore: negated"},
		{memory.Note{Text: "We cannot reproduce the crash on staging"}, "ignore: no explicit form"},
		{memory.Note{Text: "Update: the CI pipeline is broken"}, "issues/upsert  | the CI pipeline is broken |  |  |  | blocker"},
		{memory.Note{Text: "Once the blocker is fixed we ship"}, "ignore: conditional"},
		{memory.Note{Text: "The blocker is probably fixed now"}, "ignore: hedged"},
		{memory.Note{Text: "Is the blocker fixed?"}, "ignore: question"},
		{memory.Note{Text: "Let me check whether the blocker is fixed"}, "ignore: narration"},
		{memory.Note{Text: "We agreed on weekly releases"}, "decisions/append  | We agreed on weekly releases |  |  |  | "},
		{memory.Note{Text: "Agents must never write to prod"}, "constraints/upsert  | Agents must never write to prod |  |  |  | "},
		{memory.Note{Text: "I am blocked by missing credentials"}, "issues/upsert  | I am blocked by missing credentials |  |  |  | blocker"},
		{memory.Note{Text: "Turns out the cache needs warming"}, "learnings/append  | Turns out the cache needs warming |  |  |  | "},
		{memory.Note{Text: "Our plan is to ship Friday"}, "ignore: no explicit form"},
		// Ids the author states at the end, in parentheses or square brackets.
		{memory.Note{Text: "issue: uploads retry forever on slow networks (upload_retry_flake)"}, "issues/upsert upload_retry_flake | uploads retry forever on slow networks |  |  |  | "},
		{memory.Note{Text: "decision: keep sessions in Redis (session_store_redis)."}, "decisions/append session_store_redis | keep sessions in Redis |  |  |  | "},
		{memory.Note{Text: "constraint: no schema changes during the freeze [schema_freeze]"}, "constraints/upsert schema_freeze | no schema changes during the freeze |  |  |  | "},
		{memory.Note{Text: "blocker: staging deploys hang - ( staging_hang )"}, "issues/upsert staging_hang | staging deploys hang |  |  |  | blocker"},
		{memory.Note{Text: "issue: build fails on arm (v2)"}, "issues/upsert  | build fails on arm (v2) |  |  |  | "},
		{memory.Note{Text: "issue: login fails on safari (see docs)"}, "issues/upsert  | login fails on safari (see docs) |  |  |  | "},
		{memory.Note{Text: "issue: login fails (Login_Fails)"}, "issues/upsert  | login fails (Login_Fails) |  |  |  | "},
		{memory.Note{Text: "issue: uploads fail (upload_retry_flake, db_timeout)"}, "issues/upsert  | uploads fail (upload_retry_flake, db_timeout) |  |  |  | "},
		{memory.Note{Text: "issue: uploads fail (upload_retry_flake) on 3G"}, "issues/upsert  | uploads fail (upload_retry_flake) on 3G |  |  |  | "},
		{memory.Note{Text: "issue: (upload_retry_flake)"}, "issues/upsert  | (upload_retry_flake) |  |  |  | "},
		{memory.Note{Text: "issue: pandas_import: pandas fails (pandas_import)"}, "issues/upsert pandas_import | pandas fails |  |  |  | "},
		{memory.Note{Text: "issue: pandas_import: pandas fails (db_timeout)"}, "issues/upsert pandas_import | pandas fails (db_timeout) |  |  |  | "},
		{memory.Note{Text: "learned: retries need jitter (upload_retry_flake)"}, "learnings/append  | retries need jitter (upload_retry_flake) |  |  |  | "},
		{memory.Note{Text: "learned: pandas_pin: pin pandas"}, "learnings/append  | pandas_pin: pin pandas |  |  |  | "},
		{memory.Note{Text: "result: p95 is 120ms (load_run_3)"}, "results/append  | p95 is 120ms (load_run_3) |  |  |  | "},
		{memory.Note{Text: "fixed: uploads retry forever (upload_retry_flake)"}, "issues/resolve upload_retry_flake |  |  | uploads retry forever (upload_retry_flake) | uploads retry forever | "},
		{memory.Note{Text: "resolved: the slow uploads [upload_retry_flake]"}, "issues/resolve upload_retry_flake |  |  | the slow uploads [upload_retry_flake] | the slow uploads | "},
		{memory.Note{Text: "fixed: (upload_retry_flake)"}, "issues/resolve upload_retry_flake |  |  | (upload_retry_flake) |  | "},
		{memory.Note{Text: "fixed: db_timeout (upload_retry_flake)"}, "issues/resolve db_timeout |  |  | db_timeout (upload_retry_flake) | db_timeout | "},
		{memory.Note{Text: "[issues/upsert] uploads retry forever (upload_retry_flake)"}, "issues/upsert upload_retry_flake | uploads retry forever |  |  |  | "},
		{memory.Note{Text: "[issues/resolve] the slow uploads (upload_retry_flake)"}, "issues/resolve upload_retry_flake |  |  | the slow uploads (upload_retry_flake) | the slow uploads | "},
		{memory.Note{Text: "[issues/upsert db_timeout] calls time out (pool_size)"}, "issues/upsert db_timeout | calls time out (pool_size) |  |  |  | "},
		{memory.Note{Text: "[learnings/append] retries need jitter (retry_jitter)"}, "learnings/append  | retries need jitter (retry_jitter) |  |  |  | "},
		{memory.Note{Text: "We decided to pin numpy below 2 (pin_numpy_1x)"}, "decisions/append pin_numpy_1x | We decided to pin numpy below 2 |  |  |  | "},
		{memory.Note{Text: "We must not change the schema during the freeze (schema_freeze)."}, "constraints/upsert schema_freeze | We must not change the schema during the freeze |  |  |  | "},
		{memory.Note{Text: "We are blocked by the flaky VPN (vpn_flake)"}, "issues/upsert vpn_flake | We are blocked by the flaky VPN |  |  |  | blocker"},
		{memory.Note{Text: "The upload flake is fixed (upload_retry_flake)."}, "issues/resolve upload_retry_flake |  |  | The upload flake is fixed (upload_retry_flake) | The upload flake | "},
		{memory.Note{Text: "We reverted the decision to keep sessions in Redis (session_store_redis)"}, "decisions/invalidate session_store_redis |  |  | We reverted the decision to keep sessions in Redis (session_store_redis) | keep sessions in Redis | "},
		{memory.Note{Text: "TIL retries need jitter (retry_jitter)"}, "learnings/append  | TIL retries need jitter (retry_jitter) |  |  |  | "},
		{memory.Note{Text: "The upload flake is not fixed (upload_retry_flake)"}, "ignore: no explicit form"},
		{memory.Note{Text: "The upload flake is fixed, or not (upload_retry_flake)"}, "ignore: negated"},
	}
	for _, tt := range tests {
		r := promotion.Rules(tt.note)
		got := "ignore: " + r.Rationale
		if r.Decision == memory.DecisionAccept {
			got = strings.Join([]string{string(r.Bucket) + "/" + string(r.Operation) + " " + r.TargetID, r.Payload.Text, r.Payload.State,
				r.Payload.Reason, r.ReferenceText, strings.Join(r.CandidateAliases, ",")}, " | ")
		}
		if strings.HasPrefix(tt.want, "ignore: ") && r.Decision == memory.DecisionIgnore {
			if !strings.Contains(got, strings.TrimPrefix(tt.want, "ignore: ")) {
				t.Errorf("%q: %s", tt.note.Text, got)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%q:\n\tgot  %q\n\twant %q", tt.note.Text, got, tt.want)
		}
		if r.Decision == memory.DecisionAccept && tt.note.TaskID != "" && r.Bucket == memory.BucketResults && r.Payload.TaskID != "eval__2e1" {
			t.Errorf("%q: task id %q", tt.note.Text, r.Payload.TaskID)
		}
	}
}
