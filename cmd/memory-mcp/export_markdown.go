package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
)

// exportMarkdown renders what the filter selects for people: one Markdown
// file per namespace in dir (new or empty), each memory with its
// provenance (id, author, when, source, tags) and, apart, the memories no
// longer in force with what became of them; and the facts in facts.md. It
// reads the export itself, so it shows exactly what an export holds.
func exportMarkdown(ctx context.Context, db *store.DB, f store.ExportFilter, dir string) ([]string, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("export: %s is not empty: name a new or empty folder for the Markdown files", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := db.Export(ctx, f, pw)
		pw.CloseWithError(err)
	}()
	spaces := map[string][]exportedMemory{}
	var facts []exportedFact
	_, err := store.ReadExport(pr, func(kind string, row json.RawMessage) error {
		switch kind {
		case "memory":
			var m exportedMemory
			if err := json.Unmarshal(row, &m); err != nil {
				return err
			}
			spaces[m.Namespace] = append(spaces[m.Namespace], m)
		case "fact":
			var x exportedFact
			if err := json.Unmarshal(row, &x); err != nil {
				return err
			}
			facts = append(facts, x)
		}
		return nil
	})
	pr.Close()
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var files []string
	taken := map[string]bool{"facts.md": true}
	for _, ns := range slices.Sorted(maps.Keys(spaces)) {
		name := fileFor(ns, taken)
		if err := writeNew(filepath.Join(dir, name), renderNamespace(ns, spaces[ns])); err != nil {
			return files, err
		}
		files = append(files, name)
	}
	if len(facts) > 0 {
		if err := writeNew(filepath.Join(dir, "facts.md"), renderFacts(facts)); err != nil {
			return files, err
		}
		files = append(files, "facts.md")
	}
	slices.Sort(files)
	return files, nil
}

// fileFor names namespace ns's file: its name with every character but
// letters, digits, '-' and '_' made '_', never starting with '.', so that
// it stays in the folder whatever a namespace holds, and numbered when that
// name is taken (facts.md, or "a:b" and "a_b"), so that no two namespaces
// share a file.
func fileFor(ns string, taken map[string]bool) string {
	slug := []byte(ns)
	for i, c := range slug {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			slug[i] = '_'
		}
	}
	base := string(slug)
	if len(base) > 100 {
		base = base[:100]
	}
	if base == "" {
		base = "_"
	}
	name := base + ".md"
	for n := 2; taken[strings.ToLower(name)]; n++ {
		name = fmt.Sprintf("%s-%d.md", base, n)
	}
	taken[strings.ToLower(name)] = true
	return name
}

// writeNew writes a file that must not exist yet.
func writeNew(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// renderNamespace renders one namespace's memories: those in force by
// category, then the rest with what became of them.
func renderNamespace(ns string, ms []exportedMemory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Memory: %s\n", ns)
	var gone []exportedMemory
	byCat := map[string][]exportedMemory{}
	for _, m := range ms {
		if state(m) != "" {
			gone = append(gone, m)
		} else {
			byCat[m.Category] = append(byCat[m.Category], m)
		}
	}
	for _, cat := range []string{"semantic", "episodic", "procedural", "social", "working"} {
		if len(byCat[cat]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", strings.ToUpper(cat[:1])+cat[1:])
		for _, m := range byCat[cat] {
			writeMemory(&b, m, "")
		}
	}
	if len(gone) > 0 {
		b.WriteString("\n## No longer in force\n\n")
		for _, m := range gone {
			writeMemory(&b, m, state(m))
		}
	}
	return b.String()
}

// writeMemory writes one memory as a list item and its provenance.
func writeMemory(b *strings.Builder, m exportedMemory, state string) {
	text := strings.ReplaceAll(strings.TrimSpace(m.Content), "\n", "\n  ")
	fmt.Fprintf(b, "- %s\n", text)
	who := m.AgentID
	if m.AuthorIsHuman == 1 {
		who += " (human)"
	} else if m.AuthorSeniority != nil {
		who += " (" + *m.AuthorSeniority + ")"
	}
	prov := []string{"`" + m.ID + "`", who, nanoTime(m.CreatedAt)}
	if m.Source != nil {
		prov = append(prov, "source: "+*m.Source)
	}
	var tags []string
	json.Unmarshal([]byte(m.Tags), &tags)
	if len(tags) > 0 {
		prov = append(prov, "tags: "+strings.Join(tags, ", "))
	}
	if m.PublishedFrom != nil {
		prov = append(prov, "shared copy of `"+*m.PublishedFrom+"`")
	}
	if state != "" {
		prov = append(prov, state)
	}
	fmt.Fprintf(b, "  <sub>%s</sub>\n", strings.Join(prov, " · "))
}

// state says what became of a memory no longer in force; "" in force.
func state(m exportedMemory) string {
	switch {
	case m.ForgottenAt != nil:
		return fmt.Sprintf("forgotten %s by %s: %s", nanoTime(*m.ForgottenAt), deref(m.ForgottenBy), deref(m.ForgetReason))
	case m.SupersededBy != nil:
		return "superseded by `" + *m.SupersededBy + "`"
	case m.ConsolidatedInto != nil:
		return "consolidated into `" + *m.ConsolidatedInto + "`"
	case m.ArchivedAt != nil:
		return fmt.Sprintf("archived %s (%s)", nanoTime(*m.ArchivedAt), deref(m.ArchiveReason))
	}
	return ""
}

// renderFacts renders the facts, each with its version and author.
func renderFacts(facts []exportedFact) string {
	slices.SortFunc(facts, func(a, b exportedFact) int { return cmp.Compare(a.FactID, b.FactID) })
	var b strings.Builder
	b.WriteString("# Facts\n")
	for _, f := range facts {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n<sub>%s · version %d · by %s", f.FactID, strings.TrimSpace(f.Content), f.Category, f.Version, f.AuthorAgentID)
		if f.RetractedAt != nil {
			fmt.Fprintf(&b, " · retracted %s", nanoTime(*f.RetractedAt))
		}
		b.WriteString("</sub>\n")
	}
	return b.String()
}

func nanoTime(n int64) string { return time.Unix(0, n).UTC().Format("2006-01-02 15:04 UTC") }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
