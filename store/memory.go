package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// MemoryService implements memory.MemoryService: entries in SQLite (the source
// of truth), BM25 over FTS5 and, when an embedder is configured, cosine over
// an in-memory vector index (Index) rebuilt from the stored vectors.
type MemoryService struct {
	db *DB
	// Embedder makes the vector stored with each memory; nil stores none and
	// searches by BM25 alone.
	Embedder *memory.Embedder
	// Index is the vector index searched alongside BM25; nil means BM25 only.
	Index *Index
	// Retrieval tunes ranking.
	Retrieval RetrievalConfig
	// MaxContentBytes bounds a memory's content.
	MaxContentBytes int
	// Words, if set, compares single words for soft term matching.
	Words *WordVectors
	// Log receives warnings the caller cannot act on (an embedder outage).
	Log *slog.Logger
	// Dedup makes remember store nothing when the memory repeats one the
	// agent already has (see findDuplicate).
	Dedup bool
	// Contradictions says what remember does with a memory the new one
	// contradicts (see findClashes).
	Contradictions memory.ContradictionMode
	// Judge, if set, asks a model about the memories a new one is nearest
	// to by keywords, besides the rules (see judged).
	Judge memory.ContradictionJudge

	dfs dfCache // document frequencies of query words
}

// NewMemoryService returns a memory service with default limits and ranking.
// With a non-nil embedder it keeps vectors and an index over them; call
// Index.Load before serving searches.
func NewMemoryService(db *DB, emb *memory.Embedder) *MemoryService {
	s := &MemoryService{db: db, Embedder: emb, Retrieval: DefaultRetrieval(),
		MaxContentBytes: memory.DefaultMaxContentBytes, Log: slog.Default(), Dedup: true,
		Contradictions: memory.ContradictionsSupersede}
	if emb != nil {
		s.Index = NewIndex(db, *emb)
		s.Retrieval.VectorFloor = emb.Floor
	}
	return s
}

var _ memory.MemoryService = (*MemoryService)(nil)

// Remember stores a new personal memory with its vector, unless it repeats
// one of the caller's active memories (see findDuplicate): then nothing is
// stored and the memory it repeats is returned, counted once more.
func (s *MemoryService) Remember(ctx context.Context, w memory.EntryWrite) (memory.Remembered, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.Remembered{}, err
	}
	now := s.db.Now.Now()
	timed := !w.OccurredAt.IsZero()
	if err := w.Validate(s.MaxContentBytes, now); err != nil {
		return memory.Remembered{}, err
	}
	keys := keysOf(w.Content, timed)
	// A model's judgement comes before the write transaction: a model is
	// slow, and must not hold the lock.
	keys.judged = s.judged(ctx, w)
	for {
		// So does the vector. (A repeat's vector is then not needed; repeats
		// are the few.)
		v := s.embed(ctx, w.Content)
		out, err := s.remember(ctx, id, w, keys, now, v)
		if !errors.Is(err, errEmbedderMoved) {
			return out, err
		}
		// Another process deployed or rolled back an adapter since this one
		// last looked: follow it, and embed again with the embedder in force.
		if err := s.Index.FollowDeployments(ctx); err != nil {
			return memory.Remembered{}, err
		}
	}
}

// errEmbedderMoved is remember's transaction finding that an adapter was
// deployed or rolled back after its vector was made: the vector would be
// of the replaced embedder.
var errEmbedderMoved = errors.New("the embedder in force changed")

// vector is a new memory's vector, with the embedder that made it and the
// deployment (Index.Deployed) in force when it was made.
type vector struct {
	blob     any
	embedder string
	deployed int64
}

// dedupKeys are what remember finds a repeat by (the write's keys, and
// whether it names when its event happened) and the memories it may
// contradict by (its claims).
type dedupKeys struct {
	exact, words string
	meaning      string // "" when the memory has no content words
	timed        bool
	claims       []text.Claim
	judged       []judgedClash // what a model found, before the transaction
}

// keysOf is what a memory saying content is found by as a repeat, and
// finds what it contradicts by; timed says it tells of an event.
func keysOf(content string, timed bool) dedupKeys {
	k := dedupKeys{timed: timed, claims: text.ClaimKeys(content), meaning: text.MeaningKey(content)}
	k.exact, k.words = text.DedupKeys(content)
	return k
}

// remember stores w with its vector, or counts it as a repeat; either way
// it settles what w contradicts.
func (s *MemoryService) remember(ctx context.Context, id memory.Identity, w memory.EntryWrite, keys dedupKeys, now time.Time, v vector) (memory.Remembered, error) {
	var out memory.Remembered
	err := s.db.Update(ctx, func(tx *Tx) error {
		// PostgreSQL may run this again (a serialization failure): what
		// a run that rolled back found (its conflicts, a merge) is not
		// this run's answer, nor is w as it merged it.
		out = memory.Remembered{}
		w := w
		if v.blob != nil && s.Index != nil {
			// One read of the short deployment log, in the transaction that
			// stores the vector: it cannot be of an embedder a deployment
			// replaced, whichever process made it.
			var newest int64
			if err := tx.queryRow(ctx, `SELECT coalesce(max(seq), 0) FROM embedder_deployments`).Scan(&newest); err != nil {
				return fmt.Errorf("read deployments: %w", err)
			}
			if newest != v.deployed {
				return errEmbedderMoved
			}
		}
		var target, merged memory.Entry
		var mergedTier string
		if w.Supersedes != "" {
			var err error
			if target, err = supersedable(ctx, tx, id.AgentID, w.Supersedes); err != nil {
				return err
			}
		}
		if err := s.notARepeatOf(ctx, tx, id, w.NotARepeatOf); err != nil {
			return err
		}
		if s.Dedup {
			started := time.Now()
			dup, tier, merge, found, err := s.findDuplicate(ctx, tx, personalPool(id.AgentID), memory.AuthorOf(id), w, keys, now)
			CallFrom(ctx).spent("dedup", time.Since(started))
			if err != nil {
				return err
			}
			if found && !merge && dup.ID == target.ID {
				return memory.Errorf(memory.EINVALID, "this repeats memory %s, which it would supersede: nothing to correct", dup.ID)
			}
			switch {
			case found && merge:
				mergeInto(&w, keys.timed, dup)
				merged, mergedTier = dup, tier
			case found:
				if out, err = s.repeated(ctx, tx, dup, w, tier, now); err != nil {
					return err
				}
				// Nothing is stored, and dedup may be wrong: the words are kept.
				if out.RepeatID, err = tx.keepRepeat(ctx, id, repeat{memory: dup.ID, tool: "remember", tier: tier, w: w, timed: keys.timed}, now); err != nil {
					return err
				}
				return s.settle(ctx, tx, id, &out, target, nil, w, now)
			}
		}
		var clashes []clash
		// A merge says what the memory it merges said: that one's
		// conflicts carry over (see merged), and none is looked for anew.
		if s.Contradictions != memory.ContradictionsOff && merged.ID == "" {
			started := time.Now()
			var err error
			clashes, err = s.findClashes(ctx, tx, personalPool(id.AgentID), w, keys.claims, keys.timed, now)
			if err == nil {
				clashes, err = s.addJudged(ctx, tx, id.AgentID, w, clashes, keys.judged, now)
			}
			CallFrom(ctx).spent("contradiction", time.Since(started))
			if err != nil {
				return err
			}
		}
		mid, err := newMemoryID(ctx, tx)
		if err != nil {
			return err
		}
		author := memory.AuthorOf(id)
		tags, _ := json.Marshal(w.Tags)
		source := nullString(w.Source, w.Source != "")
		seniority := nullString(string(author.Seniority), !author.Human && author.Seniority != "")
		autonomy := nullString(string(author.Autonomy), author.Autonomy != "")
		// A merge keeps the first telling's time of writing (seed 003's
		// merge keeps the earliest creation): retention and consolidation
		// age a memory from it, and adding a tag must not make it new.
		created := now
		if merged.ID != "" {
			created = merged.CreatedAt
		}
		stamp, err := s.db.stamp(memoryStampTag, mid, id.AgentID, w.Namespace, w.Category, w.Content, string(tags), source, false,
			nil, nil, nil, nanos(created), nanos(w.OccurredAt), nullTime(w.ExpiresAt), seniority, autonomy, author.Human)
		if err != nil {
			return err
		}
		pk, err := tx.insertID(ctx, "pk", `INSERT INTO memories
			(id, agent_id, namespace, category, content, tags, confidence, source, created_at, updated_at,
			 occurred_at, expires_at, author_seniority, author_autonomy, author_is_human, embedding, embedder, filters, length,
			 exact_key, words_key, meaning_key, stamp)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			mid, id.AgentID, w.Namespace, w.Category, w.Content, string(tags), w.ConfidenceOr(),
			source, nanos(created), nanos(now), nanos(w.OccurredAt), nullTime(w.ExpiresAt),
			seniority, autonomy,
			author.Human, v.blob, nullString(v.embedder, v.embedder != ""), filterTokens(id.AgentID, false, w.Namespace, w.Category, w.Tags),
			indexedLength(w.Content, w.Tags), keys.exact, keys.words, nullString(keys.meaning, keys.meaning != ""), stamp)
		if err != nil {
			return fmt.Errorf("insert memory: %w", err)
		}
		if err := tx.indexMemory(ctx, pk, w.Content, string(tags), filterTokens(id.AgentID, false, w.Namespace, w.Category, w.Tags)); err != nil {
			return err
		}
		if err := tx.addClaims(ctx, id.AgentID, pk, keys.claims); err != nil {
			return err
		}
		if err := tx.RecordChange(ctx, memory.ChangeMemory, mid, now); err != nil {
			return err
		}
		if w.NotARepeatOf != "" {
			if err := tx.storedAfterAll(ctx, id.AgentID, w.NotARepeatOf, w.Content, "", mid); err != nil {
				return err
			}
		}
		if call := CallFrom(ctx); call != nil {
			call.Ref = mid
		}
		out.Outcome = memory.WriteOutcomeStored
		if merged.ID != "" {
			if err := s.merged(ctx, tx, merged, mid, mergedTier, now); err != nil {
				return err
			}
			out.Outcome, out.MergedFrom, out.Tier = memory.WriteOutcomeMerged, merged.ID, mergedTier
		}
		if out.Entry, err = getEntry(ctx, tx, mid); err != nil {
			return err
		}
		return s.settle(ctx, tx, id, &out, target, clashes, w, now)
	})
	return out, err
}

// supersedable returns the agent's memory id, which a write says it
// supersedes: it must be active.
func supersedable(ctx context.Context, tx *Tx, agent, id string) (memory.Entry, error) {
	e, err := getEntry(ctx, tx, id)
	if memory.ErrorCode(err) == memory.ENOTFOUND || err == nil && (e.AgentID != agent || e.Shared) {
		return memory.Entry{}, memory.Errorf(memory.ENOTFOUND, "supersedes: no memory of yours with id %q (a shared copy is corrected through its original)", id)
	}
	if err != nil {
		return e, err
	}
	switch {
	case e.ForgottenAt != nil:
		return e, memory.Errorf(memory.ECONFLICT, "supersedes: memory %s was forgotten (%s): remember without supersedes", id, e.ForgetReason)
	case e.ArchiveReason == memory.ArchiveSuperseded || e.ArchiveReason == memory.ArchiveMerged:
		return e, memory.Errorf(memory.ECONFLICT, "supersedes: memory %s was already %s by %s: supersede that one instead", id,
			map[memory.ArchiveReason]string{memory.ArchiveSuperseded: "superseded", memory.ArchiveMerged: "merged into a memory with more tags,"}[e.ArchiveReason], e.SupersededBy)
	case e.ArchivedAt != nil:
		return e, memory.Errorf(memory.ECONFLICT, "supersedes: memory %s is archived (%s): restore_memory it first, or remember without supersedes", id, e.ArchiveReason)
	}
	return e, nil
}

// settle records what the memory out now holds contradicts: the memory the
// writer said it supersedes, and the clashes the rules found, each
// superseded when the newer wins (see wins) or left open for review.
func (s *MemoryService) settle(ctx context.Context, tx *Tx, who memory.Identity, out *memory.Remembered, target memory.Entry, clashes []clash, w memory.EntryWrite, now time.Time) error {
	if target.ID != "" && target.ID != out.MergedFrom {
		c, err := tx.recordConflict(ctx, who, who.AgentID, target.ID, out.ID, memory.Clash{Kind: memory.ConflictStated},
			memory.ConflictNewerWins, "stated by the writer", now)
		if err != nil {
			return err
		}
		out.Conflicts = append(out.Conflicts, c)
	}
	author := memory.AuthorOf(who)
	for _, k := range clashes {
		if k.older.ID == target.ID {
			continue
		}
		res := memory.ConflictOpen
		if s.Contradictions == memory.ContradictionsSupersede && wins(k.how, k.older, w, author) {
			res = memory.ConflictNewerWins
		}
		c, err := tx.recordConflict(ctx, who, who.AgentID, k.older.ID, out.ID, k.how, res, "", now)
		if err != nil {
			return err
		}
		out.Conflicts = append(out.Conflicts, c)
	}
	return nil
}

// episodeWindow is how far apart two memories in the same words that tell
// of an event may have occurred and still be one event told twice: "went for
// a run" on Monday and on Tuesday are two runs, and "offsite in Lisbon" in
// 2024 and in 2025 two offsites.
const episodeWindow = time.Hour

// findDuplicate returns the active memory of pool sp (the caller's
// personal memories, or the shared space) that w repeats:
// the same namespace and category, the same exact or words key (exact
// first) or the same meaning key and words that restate it
// (text.Restates), a memory that has not expired, the newest first (a recurring
// episode's latest telling is the one within its time). It is a repeat
// when w adds nothing to it (see sameStatement), or one to merge with
// (merge) when w only adds tags.
func (s *MemoryService) findDuplicate(ctx context.Context, tx *Tx, sp pool, author memory.Author, w memory.EntryWrite, keys dedupKeys, now time.Time) (e memory.Entry, tier string, merge, found bool, err error) {
	same, err := scanEntries(tx.query(ctx, duplicateQuery[sp.shared()], sp.duplicateArgs(keys, w, now)...))
	if err != nil {
		return e, "", false, false, fmt.Errorf("find duplicate: %w", err)
	}
	for _, c := range same {
		if c.ID == w.NotARepeatOf {
			continue // the writer said it says something else
		}
		name := memory.DedupSemantic
		switch exact, words := text.DedupKeys(c.Content); {
		case exact == keys.exact:
			name = memory.DedupExact
		case words == keys.words:
			name = memory.DedupWords
		}
		told, err := sp.asTold(ctx, tx, c)
		if err != nil {
			return e, "", false, false, err
		}
		switch {
		case !sameStatement(w, keys.timed, told):
		case !text.NamesAgree(c.Content, w.Content):
			// The keys fold case; "Pay Bill" is not "pay bill".
		case name == memory.DedupSemantic && !text.Restates(c.Content, w.Content):
		case addsTags(w, c) && sp.shared():
			// No merge replaces a shared memory (it may be another
			// agent's): a copy with more tags says more, and is stored.
		case addsTags(w, c):
			ok, err := mergeable(ctx, tx, author, w, c)
			if err != nil {
				return e, "", false, false, err
			}
			if ok && !found {
				e, tier, merge, found = c, name, true, true
			}
		default:
			return c, name, false, true, nil
		}
	}
	if found {
		return e, tier, merge, found, nil
	}
	return s.judgedDuplicate(ctx, tx, sp.agent, author, w, keys, now)
}

// judgedDuplicate is dedup's model tier: a memory the model judged says
// what w says in other words, as the rules of the semantic tier cannot
// tell (other words, not the same words in another form; the offline
// vectors cannot tell a paraphrase from a near miss, see the figures),
// held to what the other tiers ask of a repeat.
func (s *MemoryService) judgedDuplicate(ctx context.Context, tx *Tx, agent string, author memory.Author, w memory.EntryWrite, keys dedupKeys, now time.Time) (e memory.Entry, tier string, merge, found bool, err error) {
	for _, jc := range keys.judged {
		if !jc.j.Same || jc.older == w.NotARepeatOf {
			continue
		}
		c, err := getEntry(ctx, tx, jc.older)
		if err != nil {
			return e, "", false, false, err
		}
		if c.AgentID != agent || c.Shared || !c.Active() || c.HasExpired(now) || c.Namespace != w.Namespace ||
			c.Category != w.Category || !sameStatement(w, keys.timed, c) {
			continue
		}
		if !addsTags(w, c) {
			return c, memory.DedupModel, false, true, nil
		}
		if ok, err := mergeable(ctx, tx, author, w, c); err != nil || ok {
			return c, memory.DedupModel, ok, ok, err
		}
	}
	return e, "", false, false, nil
}

// addsTags reports whether w has a tag e lacks.
func addsTags(w memory.EntryWrite, e memory.Entry) bool {
	for _, t := range w.Tags {
		if !slices.Contains(e.Tags, t) {
			return true
		}
	}
	return false
}

// sameStatement reports whether w says what e says, whose words it
// repeats: the same expiry (or none), and, when either tells of an event
// (an episode, or a memory given the time it occurred), the same event
// time within episodeWindow. timed says w was given its time.
func sameStatement(w memory.EntryWrite, timed bool, e memory.Entry) bool {
	// Another expiry, or none where there was one, says something new: a
	// lasting statement must not vanish with a passing one.
	if w.ExpiresAt.IsZero() != (e.ExpiresAt == nil) || e.ExpiresAt != nil && !e.ExpiresAt.Equal(w.ExpiresAt) {
		return false
	}
	return !eventful(w, timed, e) || withinEpisode(w.OccurredAt, e.OccurredAt)
}

// mergeInto makes w the merge of e and itself (seed 003's merge: the union
// of the tags, the higher confidence, the sources of both (as they fit),
// the event's time): stored as a new memory, it replaces e.
func mergeInto(w *memory.EntryWrite, timed bool, e memory.Entry) {
	w.Tags = append(slices.Clone(e.Tags), slices.DeleteFunc(slices.Clone(w.Tags), func(t string) bool { return slices.Contains(e.Tags, t) })...)
	if c := max(w.ConfidenceOr(), e.Confidence); c != w.ConfidenceOr() {
		w.Confidence = &c
	}
	switch {
	case w.Source == "":
		w.Source = e.Source
	case e.Source != "" && e.Source != w.Source && len(e.Source)+len("; ")+len(w.Source) <= memory.MaxSourceLen:
		w.Source = e.Source + "; " + w.Source
	}
	if !timed {
		w.OccurredAt = e.OccurredAt
	}
}

// repeated counts w as a repeat of e: nothing is stored; e is seen once
// more, now, and its confidence is the higher of the two.
func (s *MemoryService) repeated(ctx context.Context, tx *Tx, e memory.Entry, w memory.EntryWrite, tier string, now time.Time) (memory.Remembered, error) {
	_, err := tx.exec(ctx, `UPDATE memories SET seen_count = seen_count + 1, last_seen_at = ?, confidence = max(confidence, ?)
		WHERE id = ?`, nanos(now), w.ConfidenceOr(), e.ID)
	if err != nil {
		return memory.Remembered{}, fmt.Errorf("count repeat: %w", err)
	}
	if err := tx.RecordChange(ctx, memory.ChangeMemory, e.ID, now); err != nil {
		return memory.Remembered{}, err
	}
	if call := CallFrom(ctx); call != nil {
		call.Outcome, call.Reason, call.Ref = memory.WriteOutcomeDuplicate, tier, e.ID
	}
	e, err = getEntry(ctx, tx, e.ID)
	return memory.Remembered{Entry: e, Outcome: memory.WriteOutcomeDuplicate, Tier: tier}, err
}

// merged records that memory mid merges e, whose words it repeats with
// tags e lacks: e is superseded by it (out of search, recallable), and mid
// carries e's count of tellings, one more.
func (s *MemoryService) merged(ctx context.Context, tx *Tx, e memory.Entry, mid, tier string, now time.Time) error {
	if _, err := tx.exec(ctx, `UPDATE memories SET seen_count = ?, last_seen_at = ? WHERE id = ?`, e.SeenCount+1, nanos(now), mid); err != nil {
		return fmt.Errorf("count merge: %w", err)
	}
	if err := tx.replace(ctx, e.AgentID, e.ID, mid, memory.ArchiveMerged, now); err != nil {
		return err
	}
	// What e replaced, the merge replaces: a decision on a conflict it
	// carries over then finds the memory it concerns.
	if _, err := tx.exec(ctx, `UPDATE memories SET superseded_by = ? WHERE superseded_by = ? AND id <> ?`, mid, e.ID, e.ID); err != nil {
		return fmt.Errorf("carry what the merged memory replaced: %w", err)
	}
	// The merge says what e said: its conflicts, open or decided, are its.
	for _, col := range []string{"older_id", "newer_id"} {
		if _, err := tx.exec(ctx, `UPDATE memory_conflicts SET `+col+` = ? WHERE `+col+` = ?`, mid, e.ID); err != nil {
			return fmt.Errorf("carry conflicts to the merge: %w", err)
		}
	}
	if call := CallFrom(ctx); call != nil {
		call.Outcome, call.Reason = memory.WriteOutcomeMerged, tier
	}
	return nil
}

// mergeable reports whether w, written by author, may be merged with e,
// which it repeats with new tags: the merge replaces e, so not a human's
// memory by an agent's hand (nor the other way round, which would pass an
// agent's words off as a human's), not a memory shared with every agent,
// whose shared copy points at it, and not past the limit of tags.
func mergeable(ctx context.Context, tx *Tx, author memory.Author, w memory.EntryWrite, e memory.Entry) (bool, error) {
	if e.Provenance != nil && e.Provenance.Author.Human != author.Human {
		return false, nil
	}
	union := len(e.Tags)
	for _, t := range w.Tags {
		if !slices.Contains(e.Tags, t) {
			union++
		}
	}
	if union > memory.MaxTags {
		return false, nil
	}
	var shared bool
	err := tx.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE published_from = ? AND forgotten_at IS NULL)`, e.ID).Scan(&shared)
	return !shared, err
}

// embed returns the stored form of content's vector and the embedder that
// made it, or nothing when no embedder is configured or it failed. A failed
// embedding does not fail the write: the memory is kept and found by BM25,
// and `memory-mcp reindex` embeds it later.
func (s *MemoryService) embed(ctx context.Context, content string) vector {
	var v vector
	if s.Index != nil {
		v.deployed = s.Index.Deployed() // before the embedder is read: a later deployment is caught
	}
	emb := s.CurrentEmbedder()
	if emb == nil {
		return v
	}
	vecs, err := emb.Embed(ctx, []string{content})
	if err == nil && (len(vecs) != 1 || len(vecs[0]) != emb.Dim) {
		err = fmt.Errorf("embedder %s returned %d vectors of dimension %d, want 1 of %d", emb.ID, len(vecs), dimOf(vecs), emb.Dim)
	}
	if err != nil {
		s.Log.WarnContext(ctx, "memory stored without a vector; run memory-mcp reindex once the embedder works",
			"embedder", emb.ID, "err", err)
		return v
	}
	v.blob, v.embedder = encodeVector(vecs[0]), emb.ID
	return v
}

// CurrentEmbedder is the embedder new vectors are made with: the index's,
// which follows deployments of fine-tuned adapters (Index.Follow), or
// Embedder when there is no index; nil when there is neither.
func (s *MemoryService) CurrentEmbedder() *memory.Embedder {
	if s.Index != nil {
		e := s.Index.Embedder()
		return &e
	}
	return s.Embedder
}

// indexedLength counts the terms the full-text index makes of a memory's
// content and tags (text.Terms): the length BM25 reads, on PostgreSQL from
// this column and on SQLite from FTS5's own count, which must agree.
func indexedLength(content string, tags []string) int {
	n := 0
	for _, s := range append([]string{content}, tags...) {
		n += len(text.Terms(s))
	}
	return n
}

func dimOf(vecs [][]float32) int {
	if len(vecs) == 0 {
		return 0
	}
	return len(vecs[0])
}

// Recall returns the memories with these ids that the caller may see, in the
// order asked: its own, forgotten and expired ones included and marked, and
// other agents' live shared memories. A shared memory its publisher retracted
// or that has expired is gone for everyone else. One id the caller may not
// see fails the whole call, exactly as an id that does not exist would.
func (s *MemoryService) Recall(ctx context.Context, ids []string) ([]memory.Entry, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkRecallIDs(ids); err != nil {
		return nil, err
	}
	out := make([]memory.Entry, 0, len(ids))
	err = s.db.View(ctx, func(tx *Tx) error {
		for _, id := range ids {
			e, err := s.visibleEntry(ctx, tx, who, id)
			if err != nil {
				return err
			}
			if err := addProvenance(ctx, tx, &e); err != nil {
				return err
			}
			out = append(out, e)
		}
		ptrs := make([]*memory.Entry, len(out))
		for i := range out {
			ptrs[i] = &out[i]
		}
		return tx.addSources(ctx, ptrs)
	})
	return out, err
}

// checkRecallIDs rejects an empty, oversize, malformed or repeated id list.
func checkRecallIDs(ids []string) error {
	if len(ids) == 0 {
		return memory.Errorf(memory.EINVALID, "ids is empty: give the ids of the memories to recall, as search_memory returns them")
	}
	if len(ids) > memory.MaxRecallIDs {
		return memory.Errorf(memory.EINVALID, "%d ids given; the limit is %d", len(ids), memory.MaxRecallIDs)
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if err := memory.CheckID("id", id); err != nil {
			return err
		}
		if seen[id] {
			return memory.Errorf(memory.EINVALID, "id %q is given twice: list each id once", id)
		}
		seen[id] = true
	}
	return nil
}

// Forget soft-deletes one of the caller's memories: it leaves every search,
// and the row stays with when, by whom and why.
func (s *MemoryService) Forget(ctx context.Context, id, reason string) (memory.Entry, error) {
	return s.ForgetOf(ctx, "", id, reason)
}

// ForgetOf is Forget of agent's memory: a human may name any agent (the
// review page), whose summaries of it are forgotten as the agent's own
// forget would.
func (s *MemoryService) ForgetOf(ctx context.Context, agent, id, reason string) (memory.Entry, error) {
	if err := memory.CheckReason("reason", reason); err != nil {
		return memory.Entry{}, err
	}
	if reason == "" {
		reason = "forgotten"
	}
	return s.change(ctx, id, func(tx *Tx, caller memory.Identity) (memory.Entry, error) {
		owner, err := ownerOf(ctx, tx, caller, agent, "forget the memories of")
		if err != nil {
			return memory.Entry{}, err
		}
		return s.forget(ctx, tx, caller, owner, id, reason)
	})
}

// ForgetAll forgets each of ids as Forget does, in one transaction: all of
// them, or none when one cannot be forgotten.
func (s *MemoryService) ForgetAll(ctx context.Context, ids []string, reason string) ([]memory.Entry, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "ids is empty: give the ids of the memories to forget, as search_memory returns them")
	}
	if err := checkRecallIDs(ids); err != nil {
		return nil, err
	}
	if err := memory.CheckReason("reason", reason); err != nil {
		return nil, err
	}
	if reason == "" {
		reason = "forgotten"
	}
	out := make([]memory.Entry, 0, len(ids))
	err = s.db.Update(ctx, func(tx *Tx) error {
		out = out[:0]
		for _, id := range ids {
			e, err := s.forget(ctx, tx, who, who, id, reason)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// forget soft-deletes owner's memory id in tx, recorded as forgotten by
// caller (a human acting on an agent's memory is named as the human).
func (s *MemoryService) forget(ctx context.Context, tx *Tx, caller, owner memory.Identity, id, reason string) (memory.Entry, error) {
	e, err := s.ownEntry(ctx, tx, owner, id, "forget")
	if err != nil {
		return e, err
	}
	if e.Shared {
		// Forgetting is private; withdrawing what every agent reads is
		// retract_memory's, which its own risk tier governs.
		return e, memory.Errorf(memory.EINVALID, "memory %s is a shared copy, which every agent reads: retract_memory withdraws it from the shared space (forget forgets your own memory it was published from, and leaves the shared copy)", id)
	}
	if err := checkActive(e); err != nil {
		return e, err
	}
	if e, err = s.softDelete(ctx, tx, caller, e.ID, reason); err != nil {
		return e, err
	}
	if err := tx.forgetSummaries(ctx, caller, e.ID, s.db.Now.Now()); err != nil {
		return e, err
	}
	// Forgetting is private: a shared copy stays until it is retracted,
	// and the answer says so.
	return e, addProvenance(ctx, tx, &e)
}

// Publish copies one of the caller's active personal memories into the shared
// space, where other agents' searches find it. The copy records who published
// it, when, and from which entry.
// It passes dedup and the contradiction check over the shared space (see
// publish).
func (s *MemoryService) Publish(ctx context.Context, id string) (memory.MemoryPublished, error) {
	return s.PublishEntry(ctx, memory.PublishWrite{ID: id})
}

// PublishEntry is Publish of p.ID, which dedup does not count a repeat of
// p.NotARepeatOf.
func (s *MemoryService) PublishEntry(ctx context.Context, p memory.PublishWrite) (memory.MemoryPublished, error) {
	if p.NotARepeatOf != "" {
		if err := memory.CheckID("not_a_repeat_of", p.NotARepeatOf); err != nil {
			return memory.MemoryPublished{}, err
		}
	}
	var out memory.MemoryPublished
	e, err := s.change(ctx, p.ID, func(tx *Tx, who memory.Identity) (memory.Entry, error) {
		var err error
		out, err = s.publish(ctx, tx, who, p)
		return out.Entry, err
	})
	if err != nil {
		return memory.MemoryPublished{}, err
	}
	out.Entry = e
	return out, nil
}

// change runs one id-addressed write for the caller in a transaction and
// returns the changed entry with its provenance.
func (s *MemoryService) change(ctx context.Context, id string, fn func(tx *Tx, who memory.Identity) (memory.Entry, error)) (memory.Entry, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.Entry{}, err
	}
	if err := memory.CheckID("id", id); err != nil {
		return memory.Entry{}, err
	}
	var out memory.Entry
	err = s.db.Update(ctx, func(tx *Tx) error {
		e, err := fn(tx, who)
		if err != nil {
			return err
		}
		if err := addProvenance(ctx, tx, &e); err != nil {
			return err
		}
		// The write log's line names the memory, so that its story lists
		// the forget, restore or publish that changed it.
		if call := CallFrom(ctx); call != nil && call.Ref == "" {
			call.Ref = e.ID
		}
		out = e
		return nil
	})
	return out, err
}

// publishable loads memory id for publishing and says why it cannot be.
func (s *MemoryService) publishable(ctx context.Context, tx *Tx, who memory.Identity, id string, now time.Time) (memory.Entry, error) {
	e, err := s.ownEntry(ctx, tx, who, id, "publish")
	if err != nil {
		return e, err
	}
	if e.Shared {
		return e, memory.Errorf(memory.ECONFLICT, "memory %s is already a shared memory (published from %s)", e.ID, e.Provenance.PublishedFrom)
	}
	if err := checkActive(e); err != nil {
		return e, err
	}
	if e.HasExpired(now) {
		return e, memory.Errorf(memory.ECONFLICT, "memory %s expired at %s; remember it again without expires_at to share it",
			e.ID, e.ExpiresAt.Format(time.RFC3339))
	}
	copyID, err := activeCopy(ctx, tx, e.ID)
	if err != nil {
		return e, err
	}
	if copyID != "" {
		return e, memory.Errorf(memory.ECONFLICT, "memory %s is already shared as %s; retract_memory %s first to publish it again", e.ID, copyID, copyID)
	}
	return e, nil
}

// Retract withdraws the caller's shared memory, named by its own id or by the
// id of the personal memory it was published from. The row is kept.
func (s *MemoryService) Retract(ctx context.Context, id string) (memory.Entry, error) {
	return s.RetractOf(ctx, "", id)
}

// RetractOf is Retract of agent's shared memory: the caller's (agent empty),
// or, for a human caller, any agent's; the retraction is recorded as the
// caller's.
func (s *MemoryService) RetractOf(ctx context.Context, agent, id string) (memory.Entry, error) {
	return s.change(ctx, id, func(tx *Tx, caller memory.Identity) (memory.Entry, error) {
		who, err := ownerOf(ctx, tx, caller, agent, "retract the shared memories of")
		if err != nil {
			return memory.Entry{}, err
		}
		e, err := s.ownEntry(ctx, tx, who, id, "retract")
		if err != nil {
			return e, err
		}
		if !e.Shared {
			copyID, err := activeCopy(ctx, tx, e.ID)
			if err != nil {
				return e, err
			}
			if copyID == "" {
				return e, memory.Errorf(memory.ECONFLICT, "memory %s is not shared: there is nothing to retract (publish_memory shares it)", e.ID)
			}
			if e, err = getEntry(ctx, tx, copyID); err != nil {
				return e, err
			}
		}
		if err := checkActive(e); err != nil {
			return e, err
		}
		reason := "retracted from the shared space by its publisher"
		if caller.AgentID != who.AgentID {
			reason = "retracted from the shared space by " + caller.Describe()
		}
		e, err = s.softDelete(ctx, tx, caller, e.ID, reason)
		if err != nil {
			return e, err
		}
		return e, s.handOn(ctx, tx, e.ID, s.db.Now.Now())
	})
}

func (s *MemoryService) softDelete(ctx context.Context, tx *Tx, who memory.Identity, id, reason string) (memory.Entry, error) {
	now := s.db.Now.Now()
	_, err := tx.execOnce(ctx, `UPDATE memories SET forgotten_at = ?1, updated_at = ?1, forgotten_by = ?2, forget_reason = ?3,
		forgotten_autonomy = ?5 WHERE id = ?4`, nanos(now), who.AgentID, reason, id, autonomyArg(memory.AuthorOf(who).Autonomy))
	if err != nil {
		return memory.Entry{}, fmt.Errorf("forget memory: %w", err)
	}
	if err := tx.RecordChange(ctx, memory.ChangeMemory, id, now); err != nil {
		return memory.Entry{}, err
	}
	return getEntry(ctx, tx, id)
}

func checkActive(e memory.Entry) error {
	if e.ForgottenAt == nil {
		return nil
	}
	return memory.Errorf(memory.ECONFLICT, "memory %s was already forgotten at %s (%s)", e.ID, e.ForgottenAt.Format(time.RFC3339), e.ForgetReason)
}

// visibleEntry loads a memory the caller may read: any of its own, or
// another agent's shared memory that is neither retracted nor expired.
// Anything else is reported exactly like an id that does not exist, and is
// looked up by the same single query, so that neither the answer nor the
// time it takes tells another agent's personal memories from unknown ids.
func (s *MemoryService) visibleEntry(ctx context.Context, tx *Tx, who memory.Identity, id string) (memory.Entry, error) {
	now := s.db.Now.Now()
	e, err := scanEntry(tx.queryRow(ctx, entryColumns+` FROM memories m WHERE m.id = ?1 AND (m.agent_id = ?2
		OR (m.shared = 1 AND m.forgotten_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?3)))`, id, who.AgentID, nanos(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Entry{}, memoryNotFound(id)
	}
	if err != nil {
		return memory.Entry{}, fmt.Errorf("load memory %s: %w", id, err)
	}
	e.Expired = e.HasExpired(now)
	return e, nil
}

// ownEntry loads one of the caller's memories for a change (verb). A live
// shared memory of another agent exists for the caller, so refusing it is
// EFORBIDDEN; another agent's personal memory does not.
func (s *MemoryService) ownEntry(ctx context.Context, tx *Tx, who memory.Identity, id, verb string) (memory.Entry, error) {
	e, err := s.visibleEntry(ctx, tx, who, id)
	if err != nil {
		return e, err
	}
	if e.AgentID != who.AgentID {
		return memory.Entry{}, memory.Errorf(memory.EFORBIDDEN, "memory %s was shared by agent %q; only its publisher can %s it", id, e.AgentID, verb)
	}
	return e, nil
}

func memoryNotFound(id string) error {
	return memory.Errorf(memory.ENOTFOUND, "no memory with id %q: search_memory finds your memories and the shared ones", id)
}

// activeCopy returns the id of the live shared copy of personal memory id, or "".
func activeCopy(ctx context.Context, tx *Tx, id string) (string, error) {
	var copyID string
	err := tx.queryRowOnce(ctx, `SELECT id FROM memories WHERE published_from = ? AND forgotten_at IS NULL`, id).Scan(&copyID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find shared copy: %w", err)
	}
	return copyID, nil
}

// addProvenance fills the shared copy of a personal memory, when there is one.
func addProvenance(ctx context.Context, tx *Tx, e *memory.Entry) error {
	if e.Shared {
		return nil
	}
	id, err := activeCopy(ctx, tx, e.ID)
	e.Provenance.SharedAs = id
	return err
}

// activeSQL is the condition a memory is active under: neither forgotten
// nor archived. Only active memories are in the full-text index, the
// per-space statistics and the vector index.
const activeSQL = "forgotten_at IS NULL AND archived_at IS NULL"

// entryColumns selects a memory.Entry from alias m.
const entryColumns = `SELECT m.id, m.agent_id, m.namespace, m.category, m.content, m.tags, m.confidence, m.source,
	m.shared, m.created_at, m.updated_at, m.occurred_at, m.expires_at, m.author_seniority, m.author_autonomy,
	m.author_is_human, m.published_from, m.published_at, m.forgotten_at, m.forget_reason,
	m.archived_at, m.archive_reason, m.consolidated_into, m.restored_at, m.seen_count, m.last_seen_at, m.superseded_by,
	(SELECT CAST(i.id AS TEXT) || '` + importSep + `' || CAST(i.imported_at AS TEXT) || '` + importSep + `' || i.sha256 || '` + importSep + `' || i.format
	 || '` + importSep + `' || i.imported_by || '` + importSep + `' || i.file
	 FROM imports i WHERE m.pk BETWEEN i.first_memory_pk AND i.last_memory_pk AND m.created_at <= i.last_memory_created_at)`

// importSep separates the fields of an import record in entryColumns, on
// either engine: id, time, checksum, format, who, and the file last, so
// that a file name holding it stays whole.
const importSep = "\x1f"

func scanEntry(row interface{ Scan(...any) error }) (memory.Entry, error) {
	var e memory.Entry
	var tags string
	var source, sen, aut, from, reason, archReason, into, supersededBy sql.NullString
	var created, updated, occurred int64
	var expires, published, forgotten, archived, restored, seen sql.NullInt64
	var imported sql.NullString
	p := &memory.Provenance{}
	err := row.Scan(&e.ID, &e.AgentID, &e.Namespace, &e.Category, &e.Content, &tags, &e.Confidence, &source,
		&e.Shared, &created, &updated, &occurred, &expires, &sen, &aut, &p.Author.Human, &from, &published, &forgotten, &reason,
		&archived, &archReason, &into, &restored, &e.SeenCount, &seen, &supersededBy, &imported)
	if err != nil {
		return e, err
	}
	if imported.Valid {
		if p.Imported, err = decodeImport(imported.String); err != nil {
			return e, err
		}
	}
	e.ArchivedAt, e.ArchiveReason, e.ConsolidatedInto = fromNullNanos(archived), memory.ArchiveReason(archReason.String), into.String
	e.RestoredAt, e.LastSeenAt, e.SupersededBy = fromNullNanos(restored), fromNullNanos(seen), supersededBy.String
	e.Tags = decodeTags(tags)
	e.Source, e.ForgetReason = source.String, reason.String
	e.CreatedAt, e.UpdatedAt, e.OccurredAt = fromNanos(created), fromNanos(updated), fromNanos(occurred)
	e.ExpiresAt, e.ForgottenAt = fromNullNanos(expires), fromNullNanos(forgotten)
	p.Author.AgentID, p.Source = e.AgentID, e.Source
	p.Author.Seniority, _ = memory.ParseSeniority(sen.String)
	p.Author.Autonomy = memory.Autonomy(aut.String)
	if e.Shared {
		p.PublishedFrom, p.PublishedBy, p.PublishedAt = from.String, e.AgentID, fromNullNanos(published)
	}
	e.Provenance = p
	return e, nil
}

// decodeImport reads the import record entryColumns makes of an imports row.
func decodeImport(s string) (*memory.ImportProvenance, error) {
	f := strings.SplitN(s, importSep, 6)
	if len(f) != 6 {
		return nil, fmt.Errorf("an import record of %d fields", len(f))
	}
	id, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("an import record's id: %w", err)
	}
	at, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("an import record's time: %w", err)
	}
	return &memory.ImportProvenance{ID: id, At: fromNanos(at), SHA256: f[2], Format: f[3], By: f[4], File: f[5]}, nil
}

// scanEntries reads every row of a query of entryColumns; none is an empty
// list, not nil (a result's list is [] in JSON, never null).
func scanEntries(rows *sql.Rows, err error) ([]memory.Entry, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []memory.Entry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func getEntry(ctx context.Context, tx *Tx, id string) (memory.Entry, error) {
	e, err := scanEntry(tx.queryRow(ctx, entryColumns+` FROM memories m WHERE m.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return e, memoryNotFound(id)
	}
	if err != nil {
		return e, fmt.Errorf("load memory %s: %w", id, err)
	}
	return e, nil
}

// newMemoryID returns an unused id like "mem-3f9a1c7b2d4e".
func newMemoryID(ctx context.Context, tx *Tx) (string, error) {
	return unusedID(ctx, tx, "mem-", "memories")
}

// unusedID returns prefix and 12 random hex digits that no row of table
// has as its id.
func unusedID(ctx context.Context, tx *Tx, prefix, table string) (string, error) {
	for {
		var b [6]byte
		rand.Read(b[:])
		id := prefix + hex.EncodeToString(b[:])
		var taken bool
		if err := tx.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE id = ?)`, id).Scan(&taken); err != nil {
			return "", err
		}
		if !taken {
			return id, nil
		}
	}
}

func nullTime(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: nanos(t), Valid: true}
}
