package main

import (
	"fmt"
	"strconv"
	"time"
)

// FineTuneConfig schedules retraining of the embedder's adapter.
type FineTuneConfig struct {
	// Every retrains once this many memories have arrived since the last
	// run (0: never), in a human operator's stdio server.
	Every int
	// Check is how often a server looks whether a retrain is due.
	Check time.Duration
}

// finetuneSettings are the scheduled retrain's settings. It is off by
// default: a run takes minutes of CPU and re-embeds every memory.
func finetuneSettings() []setting {
	return []setting{
		{"finetune-every", "retrain the embedder's adapter (memory-mcp finetune) once this many memories have arrived since the last run, " +
			"in a human operator's stdio server; 0: never", constant("0"),
			func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return fmt.Errorf("%q is not 0 or a positive number of memories", v)
				}
				c.FineTune.Every = n
				return nil
			}},
		{"finetune-check", "how often a server looks whether a retrain is due (finetune-every)", constant("1h"),
			func(c *Config, v string) error {
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return fmt.Errorf("%q is not a positive duration such as 1h", v)
				}
				c.FineTune.Check = d
				return nil
			}},
	}
}
