package memory

import "time"

// Token is the record of a bearer token for the HTTP server: the identity a
// request carrying it acts as. The token itself is shown once, when it is
// made, and never stored; the store keeps only its hash, so a copy of the
// database lets no one call as anybody.
type Token struct {
	ID        string     `json:"id"` // names the token in lists and revocations; not a secret
	Identity  Identity   `json:"identity"`
	Label     string     `json:"label,omitempty"` // what the token is for, e.g. the machine it was given to
	CreatedAt time.Time  `json:"created_at"`
	CreatedBy string     `json:"created_by"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	RevokedBy string     `json:"revoked_by,omitempty"`
}

// Validate checks a token record before it is stored. A human's token
// may have no seniority: a human passes the rules that name one.
func (t Token) Validate() error {
	if err := CheckID("token id", t.ID); err != nil {
		return err
	}
	if err := CheckID("agent_id", t.Identity.AgentID); err != nil {
		return err
	}
	if t.Identity.Seniority.Rank() == 0 && (!t.Identity.Human || t.Identity.Seniority != "") {
		return Errorf(EINVALID, "token for %q has no seniority: use one of junior, mid, senior, lead, principal", t.Identity.AgentID)
	}
	if _, err := ParseAutonomy(string(t.Identity.Autonomy)); err != nil {
		return err
	}
	if len(t.Label) > 200 {
		return Errorf(EINVALID, "token label is %d bytes: keep it under 200", len(t.Label))
	}
	return nil
}

// PageSession is a person's sign-in on the review page: the browser keeps
// a random id, the server the identity it stands for, until it expires,
// its person signs out or the token it was opened with is revoked.
type PageSession struct {
	Identity  Identity
	CreatedAt time.Time
	ExpiresAt time.Time
	EndedAt   *time.Time // when its person signed out
	// Revoked says the bearer token it was opened with was revoked since.
	Revoked bool
}
