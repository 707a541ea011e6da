package promotion_test

import "testing"

// TestAdversarial runs the review's scenarios and ours (testdata/adv): each
// states the correct behaviour for a note that used to change shared state
// on words that do not mean it.
func TestAdversarial(t *testing.T) {
	if n := runScenarios(t, "testdata/adv/*.txt"); n < 14 {
		t.Fatalf("adversarial corpus has %d files", n)
	}
}
