package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
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

// cutTokenVerb takes the verb (and revoke's token id) from the arguments
// after "token".
func cutTokenVerb(args []string) ([]string, *tokenFlags, error) {
	f := &tokenFlags{}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil, nil, fmt.Errorf("token: say what to do: token add, token list or token revoke <id>\n%s", tokenUsage)
	}
	f.verb, args = args[0], args[1:]
	switch f.verb {
	case "add", "list":
	case "revoke":
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return nil, nil, fmt.Errorf("token revoke: name the token to revoke, e.g. token revoke tok-3f9a1c2b7d4e (token list shows the ids)")
		}
		f.id, args = args[0], args[1:]
	default:
		return nil, nil, fmt.Errorf("token: unknown action %q: use add, list or revoke\n%s", f.verb, tokenUsage)
	}
	return args, f, nil
}

const tokenUsage = `usage:
  memory-mcp token add --agent-id ID --seniority LEVEL [--autonomy LEVEL] [--human] [--label TEXT]
  memory-mcp token list [--json]
  memory-mcp token revoke ID`

func (f *tokenFlags) define(fs *flag.FlagSet) {
	if f.verb != "add" {
		fs.BoolVar(&f.json, "json", false, "list: print the tokens as JSON")
		return
	}
	fs.StringVar(&f.agentID, "agent-id", "", "the agent id the token acts as (required)")
	fs.StringVar(&f.seniority, "seniority", "", "its seniority: junior, mid, senior, lead or principal (required)")
	fs.StringVar(&f.autonomy, "autonomy", "semi", "its autonomy: locked, supervised, semi or full")
	fs.BoolVar(&f.human, "human", false, "the token is a human's")
	fs.StringVar(&f.label, "label", "", "what the token is for, e.g. the machine it goes to (shown by token list)")
}

// token manages the HTTP server's bearer tokens. A new token goes to stdout
// alone, so that a script can take it (TOKEN=$(memory-mcp token add ...));
// what to do with it goes to stderr.
func token(ctx context.Context, cfg *Config, f *tokenFlags, stdout, stderr io.Writer) error {
	db, err := store.Open(ctx, filepath.Join(cfg.DataDir, store.FileName))
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
	if f.agentID == "" || f.seniority == "" {
		return fmt.Errorf("token add: --agent-id and --seniority are required\n%s", tokenUsage)
	}
	seniority, err := memory.ParseSeniority(f.seniority)
	if err != nil {
		return fmt.Errorf("token add: %s", errorText(err))
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
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\n", t.ID, t.Identity.AgentID, t.Identity.Seniority, t.Identity.Autonomy,
			t.Identity.Human, t.CreatedAt.Format(time.RFC3339), revoked, t.Label)
	}
	return w.Flush()
}
