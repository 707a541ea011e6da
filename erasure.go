package memory

import (
	"context"
	"strings"
)

// Erasure removes stored content for good (seed 003, 12.10.2, the right to
// erasure), where every other path keeps it: forgetting, retracting and
// editing are soft deletes and versions. Only a human may erase; what an
// erase removed is accounted for in an audit row that holds no content.

// ErasureRequest selects what an erase removes. The selectors narrow each
// other: a memory is erased when it is one of IDs (if given), belongs to
// AgentID (if given: its personal memories and its shared ones) and holds
// Contains (if given) in its content, tags, source or forget reason. Notes,
// ledger events, pending items, shared-state rows, block versions and
// approval requests go when they quote an erased memory's whole content
// (ASCII letters in either case, as Contains matches; only a content of at
// least four words and 24 characters is looked for), whoever wrote them,
// since they repeat what is erased; and, without IDs, when they (or facts)
// quote Contains, narrowed to what AgentID wrote when it is given. With
// IDs, Contains only narrows the memories.
type ErasureRequest struct {
	IDs      []string
	AgentID  string
	Contains string
	// Reason is kept in the audit row: it must not quote what is erased.
	Reason string
	// DryRun counts what would go and changes nothing.
	DryRun bool
}

// MaxErasureIDs bounds the ids of one erase.
const MaxErasureIDs = 1000

// MinErasureContains is the shortest text an erase searches for: one or
// two letters are in nearly every text, and an erase cannot be undone.
const MinErasureContains = 3

// Validate checks the request's shape: a selector, a reason that does not
// quote the text searched for, well-formed ids.
func (r ErasureRequest) Validate() error {
	if len(r.IDs) == 0 && r.AgentID == "" && r.Contains == "" {
		return Errorf(EINVALID, "nothing selected: give ids (memory ids), agent_id (every memory of that agent) or contains (a text to remove wherever it is stored); they narrow each other")
	}
	if strings.TrimSpace(r.Reason) == "" {
		return Errorf(EINVALID, "reason is empty: say why this is erased (a request's reference, 'secret pasted by mistake'); it is kept in the audit, so do not quote what you erase")
	}
	if err := CheckReason("reason", r.Reason); err != nil {
		return err
	}
	if len(r.IDs) > MaxErasureIDs {
		return Errorf(EINVALID, "%d ids given; the limit is %d a call", len(r.IDs), MaxErasureIDs)
	}
	seen := make(map[string]bool, len(r.IDs))
	for _, id := range r.IDs {
		if err := CheckID("id", id); err != nil {
			return err
		}
		if seen[id] {
			return Errorf(EINVALID, "id %q is given twice: list each id once", id)
		}
		seen[id] = true
	}
	if r.AgentID != "" {
		if err := CheckID("agent_id", r.AgentID); err != nil {
			return err
		}
	}
	if r.Contains != "" {
		if err := CheckText("contains", r.Contains, MaxReasonBytes); err != nil {
			return err
		}
		if len([]rune(strings.TrimSpace(r.Contains))) < MinErasureContains {
			return Errorf(EINVALID, "contains %q is shorter than %d characters: it would match nearly everything; give the name, secret or phrase to erase", r.Contains, MinErasureContains)
		}
		if strings.Contains(strings.ToLower(r.Reason), strings.ToLower(r.Contains)) {
			return Errorf(EINVALID, "reason quotes the text to erase, and the reason is kept in the audit: say why without quoting it")
		}
	}
	return nil
}

// What an erase or gc removes, by kind (ErasureReport.Counts).
const (
	ErasedMemories       = "memories"         // memory rows, with their vectors and full-text entries
	ErasedRepeats        = "repeats"          // the words of writes answered duplicate, kept with the memory they repeated
	ErasedSources        = "memory_sources"   // what a summary was made from
	ErasedConflicts      = "conflicts"        // recorded contradictions between memories, either side erased
	ErasedNotes          = "notes"            // working-memory notes
	ErasedEvents         = "ledger_events"    // promotion ledger events
	ErasedPending        = "pending"          // pending writes
	ErasedStateRows      = "shared_state"     // shared-state rows
	ErasedBlockVersions  = "block_versions"   // core memory block versions
	ErasedBlocks         = "blocks"           // blocks left without a version
	ErasedFacts          = "facts"            // org facts, every version
	ErasedFactOperations = "fact_operations"  // their operation log rows
	ErasedKeys           = "idempotency_keys" // results kept for repeats that quoted what went
	ErasedApprovals      = "approvals"        // approval requests whose arguments quoted or named what went
	ErasedChanges        = "changes"          // change feed rows naming what went
)

// ErasureReport says what an erase (or a gc batch) removed or, dry, would.
type ErasureReport struct {
	// Erasure is the audit row's number (0 for a dry run or when nothing matched).
	Erasure int64 `json:"erasure" jsonschema:"The number of the audit row this erase left (0 for a dry run, or when nothing matched)."`
	DryRun  bool  `json:"dry_run" jsonschema:"true: nothing was changed; the counts say what would go."`
	// Counts are rows removed per kind (the Erased* constants); kinds with
	// none are left out.
	Counts map[string]int `json:"counts" jsonschema:"Rows removed (or, dry, that would be) per kind: memories, memory_sources, conflicts, approvals, notes, ledger_events, pending, shared_state, block_versions, blocks, facts, fact_operations, idempotency_keys, changes."`
	// Restored are archived memories given back to search because the
	// summary they went into was erased (they themselves were not
	// selected).
	Restored int `json:"restored" jsonschema:"Archived memories given back to search because the summary they were consolidated into was erased."`
	// Rewound are blocks whose current value quoted the text: they are back
	// at their newest version that does not.
	Rewound int `json:"rewound" jsonschema:"Core memory blocks whose current value quoted the text, now back at their newest version that does not."`
	// ErasedSHA256 is the SHA-256 over the erased items' references, as
	// the audit row keeps it.
	ErasedSHA256 string `json:"erased_sha256,omitempty" jsonschema:"SHA-256 over the references of the erased items, as kept in the audit row."`
	// Scrubbed: the database file was rewritten and its write-ahead log
	// emptied, so no file in the data directory holds the erased bytes (of
	// this erase, and of any earlier one whose scrub had failed). False
	// after a dry run, when nothing was removed and no scrub was owed, or
	// when another process kept reading through the checkpoint.
	Scrubbed bool `json:"scrubbed" jsonschema:"true: the database was rewritten and its write-ahead log emptied, so the erased bytes (of this and any earlier erase or gc) are in no file of the data directory. false after a dry run, when nothing was removed and no rewrite was owed, or when another process's reads kept the log from being emptied (then scrub_owed is true)."`
	// ScrubOwed: erased bytes (of this or an earlier erase or gc) may
	// still be in the files; the next erase, gc or server start rewrites
	// them, whether or not it removes anything.
	ScrubOwed bool `json:"scrub_owed" jsonschema:"true: bytes removed by this or an earlier erase or gc may still be in the database files, because the rewrite did not complete (another process was reading, or a process stopped first); the next erase, gc or server start rewrites them."`
}

// Total is the number of rows removed, of every kind.
func (r ErasureReport) Total() int {
	n := 0
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// ErasureService erases for good. Only humans may call it.
type ErasureService interface {
	Erase(ctx context.Context, r ErasureRequest) (ErasureReport, error)
}
