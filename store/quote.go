package store

import "strings"

// quoteMatcher finds, in one pass over a text, whether it holds any of
// many texts (an erase by agent takes thousands of memories, each quoted
// in three forms): a rolling hash of each text's first window bytes finds
// the places it may start, and a comparison there decides. A search of
// every text in every row was quadratic.
type quoteMatcher struct {
	window int
	starts map[uint64][]string // by the hash of the first window bytes
	pow    uint64              // quoteBase^(window-1)
}

// quoteBase is the rolling hash's multiplier (arithmetic mod 2^64).
const quoteBase = 1099511628211

// maxQuoteWindow bounds the window: longer texts are found by their first
// bytes and compared whole.
const maxQuoteWindow = 64

func newQuoteMatcher(texts []string) *quoteMatcher {
	m := &quoteMatcher{starts: map[uint64][]string{}}
	for _, t := range texts {
		if t != "" && (m.window == 0 || len(t) < m.window) {
			m.window = len(t)
		}
	}
	m.window = min(m.window, maxQuoteWindow)
	if m.window == 0 {
		return m
	}
	m.pow = 1
	for range m.window - 1 {
		m.pow *= quoteBase
	}
	for _, t := range texts {
		if t != "" {
			h := quoteHash(t[:m.window])
			m.starts[h] = append(m.starts[h], t)
		}
	}
	return m
}

func quoteHash(s string) uint64 {
	var h uint64
	for i := range len(s) {
		h = h*quoteBase + uint64(s[i])
	}
	return h
}

// in reports whether s holds one of the matcher's texts.
func (m *quoteMatcher) in(s string) bool {
	if m.window == 0 || len(s) < m.window {
		return false
	}
	h := quoteHash(s[:m.window])
	for i := 0; ; i++ {
		for _, t := range m.starts[h] {
			if strings.HasPrefix(s[i:], t) {
				return true
			}
		}
		if i+m.window >= len(s) {
			return false
		}
		h = (h-uint64(s[i])*m.pow)*quoteBase + uint64(s[i+m.window])
	}
}
