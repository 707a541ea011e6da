package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestPostgresMisconfigurationRefusedAtStart: stdio and serve started on
// a PostgreSQL URL the server refuses for a reason retrying cannot mend
// (an unknown database or role, a wrong password, TLS the server does not
// offer, a certificate that does not verify, a database holding another
// program's tables) exit at once with status 1 and one line on stderr,
// printed before anything else is done, that says what is wrong on which
// host and what to change, never showing the password, and not EBUSY
// (which says to retry). Nothing is made in the data directory.
func TestPostgresMisconfigurationRefusedAtStart(t *testing.T) {
	tlsCluster := storetest.OwnPostgres(t, "--tls", "--passwords")
	plain := storetest.OwnPostgres(t)
	tlsRest, _ := strings.CutPrefix(tlsCluster.URL, "postgres://postgres@")
	tlsHost, verify, _ := strings.Cut(tlsRest, "/postgres?")
	plainHost, _, _ := strings.Cut(strings.TrimPrefix(plain.URL, "postgres://postgres@"), "/")

	raw, err := storetest.OpenPostgresSQL(tlsCluster.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE ROLE ann LOGIN PASSWORD 'right-horse'`, `CREATE DATABASE ann_db OWNER ann`, `CREATE DATABASE theirs`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	theirs := "postgres://postgres@" + tlsHost + "/theirs?" + verify
	if raw, err = storetest.OpenPostgresSQL(theirs); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE memories (id int); CREATE TABLE invoices (id int)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	otherCA := storetest.UnknownCA(t)

	for _, tt := range []struct {
		name, url string
		want      []string
	}{
		{"unknown database", "postgres://postgres:s3cret@" + plainHost + "/no_such_db?sslmode=disable",
			[]string{`database "no_such_db" does not exist on ` + plainHost, "CREATE DATABASE"}},
		{"unknown role", "postgres://nobody:s3cret@" + plainHost + "/postgres?sslmode=disable",
			[]string{`role "nobody" does not exist on ` + plainHost, "CREATE ROLE"}},
		{"wrong password", "postgres://ann:s3cret@" + tlsHost + "/ann_db?" + verify,
			[]string{`authentication failed for user "ann" on ` + tlsHost, "correct the password"}},
		{"TLS refused", "postgres://postgres:s3cret@" + plainHost + "/postgres?sslmode=require",
			[]string{"the server " + plainHost + " refused TLS", "enable ssl on the server", "sslmode=prefer", "sslmode=disable"}},
		{"unknown authority", "postgres://postgres:s3cret@" + tlsHost + "/postgres?sslmode=verify-full&sslrootcert=" + otherCA,
			[]string{"the TLS certificate of the server " + tlsHost + " failed verification", "signed by an unknown authority", "sslrootcert"}},
		{"another program's tables", strings.Replace(theirs, "postgres@", "postgres:s3cret@", 1),
			[]string{"/theirs is not a memory-mcp database", "(invoices, memories)", "an empty database", "options=-csearch_path%3Dmemory_mcp"}},
	} {
		for _, command := range [][]string{{"stdio"}, {"serve", "--addr", "127.0.0.1:0"}} {
			t.Run(tt.name+"/"+command[0], func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "data")
				cmd := exec.Command(binary(t), append(command, "--data-dir", dir, "--database", tt.url, "--embedder", "none")...)
				cmd.Env = homeEnv(t.TempDir())
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				msg := stderr.String()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Fatalf("%s on a refused database: %v, want exit status 1\nstderr: %s", command[0], err, msg)
				}
				if !strings.HasPrefix(msg, "memory-mcp: ") || strings.Count(msg, "\n") != 1 {
					t.Errorf("stderr is not the one line of the refusal: %q", msg)
				}
				for _, w := range tt.want {
					if !strings.Contains(msg, w) {
						t.Errorf("stderr does not say %q: %s", w, msg)
					}
				}
				if strings.Contains(msg, "s3cret") || strings.Contains(msg, "EBUSY") || strings.Contains(msg, "retry") {
					t.Errorf("stderr shows the password, or says to retry: %s", msg)
				}
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("%s made the data directory before it could open the database", command[0])
				}
			})
		}
	}
}
