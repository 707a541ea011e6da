package consolidation_test

import (
	"testing"

	"github.com/memory-mcp/memory-mcp/consolidation"
)

// TestDensityClassifier: the five signals tell code, structured data and
// logs (dense: summarising them loses the detail that mattered) from prose
// and conversation (sparse), at the default threshold.
func TestDensityClassifier(t *testing.T) {
	c := consolidation.DensityClassifier{Threshold: consolidation.DefaultDenseThreshold}
	tests := []struct {
		name string
		text string
		want consolidation.Density
	}{
		{"go code", "func (s *Service) strategy(st Strategy) (summarizer, error) {\n\tswitch st {\n\tcase simple:\n\t\treturn s.simple, nil\n\t}\n\treturn nil, err\n}", consolidation.DensityDense},
		{"python code", "def handler(event):\n    body = json.loads(event['body'])\n    return process(body)", consolidation.DensityDense},
		{"sql", "SELECT id, name FROM users WHERE created_at > '2024-01-01' ORDER BY id;", consolidation.DensityDense},
		{"json", `{"service": "billing-api", "version": "2.14.1", "replicas": 3, "endpoint": "https://billing.internal/v2"}`, consolidation.DensityDense},
		{"yaml", "port: 8080\nhost: db.internal\nuser: billing\npool: 20", consolidation.DensityDense},
		{"key=value line", "billing-api config: max_conns=200 pool_size=20 region=eu-west-1", consolidation.DensityDense},
		{"log lines", "2026-03-01T12:00:01Z ERROR db timeout after 30s host=10.0.0.5 req_id=af3e91\n" +
			"2026-03-01T12:00:04Z WARN retry 2/5 host=10.0.0.5 latency_ms=1840\n2026-03-01T12:00:09Z INFO recovered host=10.0.0.5", consolidation.DensityDense},
		{"one log line", "2026-03-01T12:00:01Z ERROR db timeout after 30s host=10.0.0.5 req_id=af3e91", consolidation.DensityDense},
		{"identifiers in a note", "The deploy of billing-api v2.14.1 failed: pod crashloop, OOMKilled at 512Mi; raised limit to 1Gi (commit 3f9a2c1).", consolidation.DensityDense},
		{"narrative", "We spent the afternoon talking about the garden and decided to plant tomatoes next spring, since the basil did so well this year.", consolidation.DensitySparse},
		{"preference", "The user prefers short answers and dislikes long explanations; they said so twice during the review.", consolidation.DensitySparse},
		{"prose with a figure in brackets", "Booked train tickets to Lisbon for the conference in May (10:30 train, seat 42).", consolidation.DensitySparse},
		{"chat turn", "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.", consolidation.DensitySparse},
		{"short reply", "Jon: Thanks!", consolidation.DensitySparse},
		{"transcript", "user: can you fix the flaky test?\nassistant: yes, the retry loop had no backoff; added one.", consolidation.DensitySparse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Classify(tt.text); got != tt.want {
				t.Errorf("Classify = %s (score %.2f), want %s", got, consolidation.DensityScore(tt.text), tt.want)
			}
		})
	}
	if got := (consolidation.DensityClassifier{Threshold: 0}).Classify("plain words"); got != consolidation.DensityDense {
		t.Errorf("threshold 0 classifies prose %s, want everything dense", got)
	}
}

var (
	denseTexts = []string{
		`{"service": "billing-api", "replicas": 3}`,
		"port: 8080\nhost: db.internal\npool: 20",
		"2026-03-01T12:00:01Z ERROR db timeout after 30s host=10.0.0.5",
		"SELECT id FROM users WHERE id = 7;",
	}
	sparseTexts = []string{
		"We talked about the garden for an hour.",
		"The basil grew well this summer.",
		"Ana wants the report by Friday.",
		"The team liked the new office.",
	}
)

// TestVote: a group is dense when more than half of it is; an even split is
// sparse, the seed's safer path.
func TestVote(t *testing.T) {
	c := consolidation.DensityClassifier{Threshold: consolidation.DefaultDenseThreshold}
	for _, text := range denseTexts {
		if c.Classify(text) != consolidation.DensityDense {
			t.Fatalf("fixture %q is not dense (%.2f)", text, consolidation.DensityScore(text))
		}
	}
	for _, text := range sparseTexts {
		if c.Classify(text) != consolidation.DensitySparse {
			t.Fatalf("fixture %q is not sparse (%.2f)", text, consolidation.DensityScore(text))
		}
	}
	tests := []struct {
		dense, sparse int
		want          consolidation.Density
	}{{4, 0, consolidation.DensityDense}, {3, 1, consolidation.DensityDense}, {2, 1, consolidation.DensityDense}, {2, 2, consolidation.DensitySparse}, {1, 2, consolidation.DensitySparse}, {0, 4, consolidation.DensitySparse}}
	for _, tt := range tests {
		texts := append(append([]string{}, denseTexts[:tt.dense]...), sparseTexts[:tt.sparse]...)
		if got := c.Vote(texts); got != tt.want {
			t.Errorf("%d dense, %d sparse: %s, want %s", tt.dense, tt.sparse, got, tt.want)
		}
		// The order of the members does not matter.
		texts = append(append([]string{}, sparseTexts[:tt.sparse]...), denseTexts[:tt.dense]...)
		if got := c.Vote(texts); got != tt.want {
			t.Errorf("%d sparse, %d dense: %s, want %s", tt.sparse, tt.dense, got, tt.want)
		}
	}
}
