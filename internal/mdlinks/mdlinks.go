// Package mdlinks reads the relative links of Markdown pages and the
// anchors GitHub gives their headings, so that the pages can be checked
// (every link reaches a file, every #anchor a heading) and shipped with
// everything they link.
package mdlinks

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

var (
	inlineLink = regexp.MustCompile(`\]\(\s*(<[^>]*>|[^)\s]+)`)
	refDef     = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	codeSpan   = regexp.MustCompile("(`+)[^`]*?(`+)")
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	heading    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	scheme     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	mdLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// line is a line of Markdown as written, and with its inline code spans
// blanked (a link written as code is an example, not a link).
type line struct{ raw, text string }

// lines are md's lines outside fenced code blocks.
func lines(md []byte) []line {
	var out []line
	fence := ""
	for l := range strings.Lines(string(md)) {
		l = strings.TrimRight(l, "\r\n")
		trimmed := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		out = append(out, line{l, codeSpan.ReplaceAllString(l, "code")})
	}
	return out
}

// Links are the targets of md's inline links and images and of its link
// reference definitions, in order, web addresses (any scheme) left out.
func Links(md []byte) []string {
	var out []string
	add := func(target string) {
		target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
		if target != "" && !scheme.MatchString(target) && !strings.HasPrefix(target, "//") {
			out = append(out, target)
		}
	}
	for _, l := range lines(md) {
		for _, m := range inlineLink.FindAllStringSubmatch(l.text, -1) {
			add(m[1])
		}
		if m := refDef.FindStringSubmatch(l.text); m != nil {
			add(m[1])
		}
	}
	return out
}

// Slug is the anchor GitHub gives a heading of this text: lower-case,
// punctuation dropped (letters, digits, spaces, hyphens and underscores
// kept), each space a hyphen.
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors are the anchors of md's headings, as GitHub makes them (a
// repeated heading's second anchor ends in -1, its third in -2), and of its
// <a name> and <a id> elements.
func Anchors(md []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range lines(md) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l.text, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(l.raw)
		if m == nil {
			continue
		}
		// The text GitHub renders: a link's text, code without its marks.
		slug := Slug(mdLinkText.ReplaceAllString(strings.ReplaceAll(m[2], "`", ""), "$1"))
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// Split resolves target, linked from the page at from (slash-separated,
// relative to the root of fsys), to the file it names and its #anchor.
// ok is false when the target leaves the root.
func Split(from, target string) (file, anchor string, ok bool) {
	file, anchor, _ = strings.Cut(target, "#")
	if file, _, _ = strings.Cut(file, "?"); file == "" {
		return from, anchor, true
	}
	file = path.Join(path.Dir(from), file)
	return file, anchor, file != ".." && !strings.HasPrefix(file, "../") && !path.IsAbs(file)
}

// Broken lists every link of the pages (paths in fsys) that reaches no
// file or directory of fsys, or names an anchor its page lacks.
func Broken(fsys fs.FS, pages []string) []string {
	var out []string
	anchors := map[string]map[string]bool{}
	for _, page := range pages {
		md, err := fs.ReadFile(fsys, page)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", page, err))
			continue
		}
		for _, target := range Links(md) {
			file, anchor, ok := Split(page, target)
			if !ok {
				out = append(out, fmt.Sprintf("%s: link %s leaves the tree", page, target))
				continue
			}
			info, err := fs.Stat(fsys, file)
			if err != nil {
				out = append(out, fmt.Sprintf("%s: link %s: no file %s", page, target, file))
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || path.Ext(file) != ".md" {
				out = append(out, fmt.Sprintf("%s: link %s: %s is not a Markdown page, it has no anchors", page, target, file))
				continue
			}
			if anchors[file] == nil {
				b, err := fs.ReadFile(fsys, file)
				if err != nil {
					out = append(out, fmt.Sprintf("%s: link %s: %v", page, target, err))
					continue
				}
				anchors[file] = Anchors(b)
			}
			if !anchors[file][anchor] {
				out = append(out, fmt.Sprintf("%s: link %s: %s has no heading with anchor #%s", page, target, file, anchor))
			}
		}
	}
	return out
}

// Closure is the pages and every file they link, and every file those
// link in turn when they are Markdown pages: slash-separated paths in
// fsys, sorted. A link to a missing file, to a directory or out of the
// tree is an error, since what it names cannot be carried along.
func Closure(fsys fs.FS, pages ...string) ([]string, error) {
	have := map[string]bool{}
	queue := slices.Clone(pages)
	for _, p := range pages {
		if _, err := fs.Stat(fsys, p); err != nil {
			return nil, err
		}
		have[p] = true
	}
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		if path.Ext(page) != ".md" {
			continue
		}
		md, err := fs.ReadFile(fsys, page)
		if err != nil {
			return nil, err
		}
		for _, target := range Links(md) {
			file, _, ok := Split(page, target)
			if !ok {
				return nil, fmt.Errorf("%s: link %s leaves the tree", page, target)
			}
			if have[file] {
				continue
			}
			info, err := fs.Stat(fsys, file)
			if err != nil {
				return nil, fmt.Errorf("%s: link %s: %v", page, target, err)
			}
			if info.IsDir() {
				return nil, fmt.Errorf("%s: link %s names a directory; link a file in it", page, target)
			}
			have[file] = true
			queue = append(queue, file)
		}
	}
	return slices.Sorted(maps.Keys(have)), nil
}
