package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/auth"
	"github.com/memory-mcp/memory-mcp/store"
)

// tokenFlags are the token command's own flags. The identity a new token
// stands for comes only from these flags, never from the environment or the
// config file, whose agent-id is the operator's own.
type tokenFlags struct {
	verb      string // add, list or revoke
	id        string // revoke: the token to revoke
	agentID   string
	seniority string
	autonomy  string
	human     bool
	label     string
	json      bool
}

func (f *tokenFlags) defineList(fs *flag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "print the tokens as JSON")
}

func (f *tokenFlags) defineAdd(fs *flag.FlagSet) {
	fs.StringVar(&f.agentID, "agent-id", "", "the agent id the token acts as (required)")
	fs.StringVar(&f.seniority, "seniority", "", "its seniority: junior, mid, senior, lead or principal (required, but for a human)")
	fs.StringVar(&f.autonomy, "autonomy", "semi", "its autonomy: locked, supervised, semi or full")
	fs.BoolVar(&f.human, "human", false, "the token is a human's")
	fs.StringVar(&f.label, "label", "", "what the token is for, e.g. the machine it goes to (shown by token list)")
}

// token manages the HTTP server's bearer tokens. A new token goes to stdout
// alone, so that a script can take it (TOKEN=$(memory-mcp token add ...));
// what to do with it goes to stderr.
func token(ctx context.Context, cfg *Config, f *tokenFlags, stdout, stderr io.Writer) error {
	db, err := openDatabase(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	switch f.verb {
	case "add":
		return addToken(ctx, cfg, db, f, stdout, stderr)
	case "list":
		return listTokens(ctx, db, f.json, stdout)
	}
	t, err := db.RevokeToken(ctx, f.id, cfg.Identity.AgentID)
	if err != nil {
		return fmt.Errorf("token revoke: %s", errorText(err))
	}
	fmt.Fprintf(stdout, "revoked %s (%s): a server refuses it from its next request on\n", t.ID, t.Identity.Describe())
	return nil
}

func addToken(ctx context.Context, cfg *Config, db *store.DB, f *tokenFlags, stdout, stderr io.Writer) error {
	if f.agentID == "" || f.seniority == "" && !f.human {
		return fmt.Errorf("token add: --agent-id and, for an agent, --seniority are required\nRun \"memory-mcp token add --help\" for its usage")
	}
	var seniority memory.Seniority
	if f.seniority != "" || !f.human { // a human passes the rules that name a seniority, and needs none
		s, err := memory.ParseSeniority(f.seniority)
		if err != nil {
			return fmt.Errorf("token add: %s", errorText(err))
		}
		seniority = s
	}
	autonomy, err := memory.ParseAutonomy(f.autonomy)
	if err != nil {
		return fmt.Errorf("token add: %s", errorText(err))
	}
	secret, hash, id := auth.NewToken()
	t, err := db.AddToken(ctx, memory.Token{ID: id, Label: f.label, CreatedBy: cfg.Identity.AgentID,
		Identity: memory.Identity{AgentID: f.agentID, Seniority: seniority, Autonomy: autonomy, Human: f.human}}, hash)
	if err != nil {
		return fmt.Errorf("token add: %s", errorText(err))
	}
	fmt.Fprintln(stdout, secret)
	fmt.Fprintf(stderr, "token %s for %s, autonomy %s. It is shown this once and cannot be shown again: give it to its client now "+
		"(Authorization: Bearer <token>). Revoke it with: memory-mcp token revoke %s\n", t.ID, t.Identity.Describe(), t.Identity.Autonomy, t.ID)
	return nil
}

func listTokens(ctx context.Context, db *store.DB, asJSON bool, stdout io.Writer) error {
	ts, err := db.Tokens(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"tokens": ts})
	}
	if len(ts) == 0 {
		fmt.Fprintln(stdout, "no tokens: add one with memory-mcp token add --agent-id ID --seniority LEVEL")
		return nil
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tAGENT\tSENIORITY\tAUTONOMY\tHUMAN\tCREATED\tREVOKED\tLABEL")
	for _, t := range ts {
		revoked := "-"
		if t.RevokedAt != nil {
			revoked = t.RevokedAt.Format(time.RFC3339) + " by " + t.RevokedBy
		}
		seniority := t.Identity.Seniority.String()
		if t.Identity.Human && t.Identity.Seniority == "" {
			seniority = "-" // a human needs none
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\n", t.ID, t.Identity.AgentID, seniority, t.Identity.Autonomy,
			t.Identity.Human, t.CreatedAt.Format(time.RFC3339), revoked, t.Label)
	}
	return w.Flush()
}
