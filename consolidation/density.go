package consolidation

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Density is how much of a memory's text is exact detail (code, structured
// data, identifiers, figures) rather than narrative: it decides how
// dual_mode archives a group (seed 004's ContentDensity).
type Density string

// Densities.
const (
	// DensitySparse is conversational or narrative text, which a summary
	// can retell without losing what matters.
	DensitySparse Density = "sparse"
	// DensityDense is code, structured data, identifiers and figures,
	// which a summary would ruin: dual_mode keeps its facts verbatim.
	DensityDense Density = "dense"
)

// The five signals of seed 004's DensityClassifier and their weights, which
// sum to 1 so that the threshold reads as a share of the evidence: each
// signal counts its patterns, divides by a measure of the text's size
// (words or lines) and scales the ratio into 0..1.
const (
	weightCode       = 0.30
	weightStructured = 0.25
	weightIdentifier = 0.20
	weightNumeric    = 0.10
	weightLines      = 0.15

	scaleCode       = 5.0  // one code token in five words saturates
	scaleStructured = 2.0  // a marker on every other line saturates
	scaleIdentifier = 8.0  // one identifier in eight words saturates
	scaleNumeric    = 10.0 // one exact figure in ten words saturates

	shortLine      = 80.0 // characters: below it a line reads as code or data
	manyLines      = 10.0 // lines at which the layout signal saturates
	minStructLines = 2
)

var (
	// codePattern is the seed's (definitions, imports, control flow,
	// assignments of collections, structural delimiters) with Go's and
	// JavaScript's operators and SQL's clauses.
	codePattern = regexp.MustCompile(`def\s+\w+\s*\(|class\s+\w+|import\s+\w+|from\s+\w+\s+import|return\s+|if\s+.*:|` +
		`for\s+\w+\s+in\s+|\w+\s*=\s*[\[{(]|[{}\[\]();]|func\s+\w+\s*\(|:=|=>|->|&&|\|\||` +
		`\b(?:SELECT|FROM|WHERE|JOIN|INSERT INTO|UPDATE|DELETE FROM|ORDER BY|GROUP BY)\b`)
	// structuredPattern marks structured data: JSON keys, XML tags and
	// key=value pairs (logs, configuration).
	structuredPattern = regexp.MustCompile(`"[\w-]+":\s*|</?[\w-]+[>\s]|\b[\w.-]+=\S`)
	// yamlPattern marks YAML's key-value lines and list items. "Name: text"
	// is also how a transcript labels its speaker, so these count only in
	// text of several lines, and a key-value line only when its value is a
	// few words, as data is, not a sentence.
	yamlPattern = regexp.MustCompile(`(?m)^\s*[\w.-]+:[ \t]+\S+(?:[ \t]+\S+){0,2}[ \t]*$|^\s*-\s+\S`)
	// identifierPattern: UUIDs, hex hashes, URLs, snake_case and camelCase
	// names of three parts or more, dotted paths.
	// The seed's pattern ignored case throughout, which made every word of
	// five letters a camelCase name and all prose a third of the way to
	// dense; here only the hexadecimal ignores case.
	identifierPattern = regexp.MustCompile(`(?i:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32,}\b)|` +
		`https?://\S+|\b[a-z0-9]+(?:_[a-z0-9]+){2,}\b|\b[a-z]+(?:[A-Z][a-z0-9]+){2,}\b|\b\w+(?:\.\w+){2,}\(?`)
	// numericPattern: versions, IPv4 addresses, ISO dates and times, long
	// numbers.
	numericPattern = regexp.MustCompile(`\bv?\d+\.\d+\.\d+\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|` +
		`\b\d{2}:\d{2}:\d{2}\b|\b\d{5,}\b`)
)

// DefaultDenseThreshold is the density score at which text is dense. The
// seed's 0.5 counted every text's longer words as identifiers, 0.2 of the
// score before any evidence; with that fixed (see identifierPattern) 0.25
// asks for about the same: one signal saturated (a line of JSON, XML or
// key=value pairs is dense on its structure alone), or several in part.
// Prose with a figure in brackets scores about 0.2, and of LoCoMo's 5,882
// turns one (";)") reaches it.
const DefaultDenseThreshold = 0.25

// DensityClassifier tells dense text from sparse by the seed's five
// weighted signals; no model is involved, so it is deterministic.
type DensityClassifier struct {
	// Threshold is the score at which text is dense: 0 makes everything
	// dense, 1 almost nothing (DefaultDenseThreshold).
	Threshold float64
}

// Classify returns the density of text.
func (c DensityClassifier) Classify(text string) Density {
	if DensityScore(text) >= c.Threshold {
		return DensityDense
	}
	return DensitySparse
}

// DensityScore is the weighted sum of the five signals, from 0 (prose) to 1.
func DensityScore(text string) float64 {
	words := float64(max(len(strings.Fields(text)), 1))
	lines := nonEmptyLines(text)
	perWord := func(re *regexp.Regexp, scale float64) float64 {
		return min(float64(len(re.FindAllStringIndex(text, -1)))/words*scale, 1)
	}
	markers := len(structuredPattern.FindAllStringIndex(text, -1))
	if len(lines) >= minStructLines {
		markers += len(yamlPattern.FindAllStringIndex(text, -1))
	}
	structured := min(float64(markers)/float64(max(len(lines), 1))*scaleStructured, 1)
	return weightCode*perWord(codePattern, scaleCode) +
		weightStructured*structured +
		weightIdentifier*perWord(identifierPattern, scaleIdentifier) +
		weightNumeric*perWord(numericPattern, scaleNumeric) +
		weightLines*lineStructure(lines)
}

// lineStructure scores layout: many short lines read as code or data.
func lineStructure(lines []string) float64 {
	if len(lines) < minStructLines {
		return 0
	}
	total := 0
	for _, l := range lines {
		total += utf8.RuneCountInString(l)
	}
	avg := float64(total) / float64(len(lines))
	return max(0, 1-avg/shortLine) * min(float64(len(lines))/manyLines, 1)
}

func nonEmptyLines(text string) []string {
	var out []string
	for l := range strings.Lines(text) {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, "\r\n"))
		}
	}
	return out
}

// Vote is the seed's majority vote over a whole group (dual_mode counts
// the memory kept too): dense when more than half of texts are dense, so
// that an even split takes the abstractive path, the safer one for prose.
func (c DensityClassifier) Vote(texts []string) Density {
	dense := 0
	for _, t := range texts {
		if c.Classify(t) == DensityDense {
			dense++
		}
	}
	if dense*2 > len(texts) {
		return DensityDense
	}
	return DensitySparse
}
