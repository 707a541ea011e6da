package store_test

import (
	"database/sql"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// refusedFor opens url, which must fail, and returns its message, checked
// to be a permanent error (no code: not EBUSY, which says to retry) that
// quotes no password.
func refusedFor(t *testing.T, url, password string) string {
	t.Helper()
	db, err := store.OpenPostgres(t.Context(), url)
	if err == nil {
		db.Close()
		t.Fatalf("opened %s", url)
	}
	msg := err.Error()
	t.Log(msg)
	if memory.ErrorCode(err) != memory.EINTERNAL {
		t.Errorf("a set-up the server refuses fails as %s (%v): retrying cannot help", memory.ErrorCode(err), err)
	}
	if password != "" && strings.Contains(msg, password) {
		t.Errorf("the message shows the password: %s", msg)
	}
	return msg
}

// wantWords fails t unless msg holds every one of words.
func wantWords(t *testing.T, msg string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("the message does not say %q: %s", w, msg)
		}
	}
}

// TestPostgresRefusesAnUnknownDatabaseOrRole: a URL naming a database or
// a role the server does not have fails at once with a permanent error
// saying which, on which host, and what to do, never showing the
// password.
func TestPostgresRefusesAnUnknownDatabaseOrRole(t *testing.T) {
	url := storetest.PostgresDatabaseURL(t) // postgres://user@host:port/db?sslmode=disable
	rest, _ := strings.CutPrefix(url, "postgres://")
	user, rest, _ := strings.Cut(rest, "@")
	host, rest, _ := strings.Cut(rest, "/")
	_, query, _ := strings.Cut(rest, "?")

	msg := refusedFor(t, "postgres://"+user+":s3cret@"+host+"/no_such_db_24?"+query, "s3cret")
	wantWords(t, msg, `database "no_such_db_24" does not exist on `+host, "CREATE DATABASE", "postgres://"+host+"/no_such_db_24")

	msg = refusedFor(t, "postgres://no_such_role_24:s3cret@"+host+"/postgres?"+query, "s3cret")
	wantWords(t, msg, `role "no_such_role_24" does not exist on `+host, "CREATE ROLE")
}

// TestPostgresRefusesAnotherProgramsTables: a database whose schema holds
// tables memory-mcp did not make is refused before anything is made in
// it, naming the tables and saying to use an empty database or a schema
// of its own; so is one whose schema_migrations another tool made, and
// one left with an empty schema_migrations beside foreign tables.
func TestPostgresRefusesAnotherProgramsTables(t *testing.T) {
	for _, tt := range []struct {
		name, setup string
		words       []string
	}{
		{"foreign tables", `CREATE TABLE memories (id int); CREATE TABLE users (id int)`,
			[]string{"memories, users", "no schema_migrations"}},
		{"another tool's migrations", `CREATE TABLE schema_migrations (version bigint, dirty boolean); CREATE TABLE users (id int)`,
			[]string{"another program's (columns dirty, version)"}},
		{"a stray schema_migrations", `CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL); CREATE TABLE memories (id int)`,
			[]string{"memories) beside an empty schema_migrations"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := storetest.PostgresDatabaseURL(t)
			raw, err := storetest.OpenPostgresSQL(url)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(tt.setup); err != nil {
				t.Fatal(err)
			}
			before := tables(t, raw)
			msg := refusedFor(t, url, "")
			wantWords(t, msg, append(tt.words, " is not a memory-mcp database: schema public is not empty", "nothing was changed",
				"an empty database", "CREATE SCHEMA memory_mcp", "options=-csearch_path%3Dmemory_mcp")...)
			if after := tables(t, raw); !slices.Equal(before, after) {
				t.Errorf("the refused database's tables went from %v to %v", before, after)
			}
		})
	}
}

// tables lists the tables of the public schema.
func tables(t *testing.T, raw *sql.DB) []string {
	t.Helper()
	rows, err := raw.Query(`SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY relname`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestPostgresInASchemaOfItsOwn: with options=-csearch_path=... in the URL
// the store makes and uses its tables in that schema, beside another
// program's tables of the same names in public, which it leaves alone;
// a search_path naming no schema that exists is refused, saying so.
func TestPostgresInASchemaOfItsOwn(t *testing.T) {
	url := storetest.PostgresDatabaseURL(t)
	raw, err := storetest.OpenPostgresSQL(url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TABLE memories (id int, content text); INSERT INTO memories VALUES (1, 'not ours');
		CREATE SCHEMA memory_mcp`); err != nil {
		t.Fatal(err)
	}

	msg := refusedFor(t, url+"&options=-csearch_path%3Dno_such_schema", "")
	wantWords(t, msg, "no schema of its search_path (no_such_schema) exists", "CREATE SCHEMA")

	inSchema := url + "&options=-csearch_path%3Dmemory_mcp"
	for range 2 { // the second open finds its schema made
		db, err := store.OpenPostgres(t.Context(), inSchema)
		if err != nil {
			t.Fatal(err)
		}
		mem := store.NewMemoryService(db, nil)
		remember(t, mem, senior, memory.EntryWrite{Content: "The standup moved to ten."})
		if hits := search(t, mem, senior, memory.Query{Text: "standup"}); len(hits) == 0 {
			t.Error("search in the schema of its own finds nothing")
		}
		rep, err := mem.Erase(as(human), memory.ErasureRequest{Contains: "standup", Reason: "test"})
		if err != nil || rep.Counts[memory.ErasedMemories] != 1 {
			t.Errorf("erase in the schema of its own: %+v, %v", rep, err)
		}
		db.Close()
	}
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM memory_mcp.schema_migrations`).Scan(&n); err != nil || n == 0 {
		t.Errorf("memory_mcp.schema_migrations holds %d migrations (%v)", n, err)
	}
	var content string
	if err := raw.QueryRow(`SELECT string_agg(content, ',') FROM public.memories`).Scan(&content); err != nil || content != "not ours" {
		t.Errorf("public.memories now holds %q (%v), want the other program's row alone", content, err)
	}
	if got := tables(t, raw); !slices.Equal(got, []string{"memories"}) {
		t.Errorf("public now holds %v, want the other program's memories alone", got)
	}
}

// TestPostgresOverVerifiedTLS: on a cluster with ssl = on and a
// certificate from a CA of its own (scripts/postgres.sh start --tls), the
// store opens and works over sslmode=verify-full. A CA that did not sign
// the certificate, a certificate for another host, a wrong password, a
// user that may not create tables, and sslmode=require against a server
// without TLS are each refused at once, permanently, saying what failed
// on which host and what to do; an sslrootcert that cannot be read is
// EINVALID.
func TestPostgresOverVerifiedTLS(t *testing.T) {
	c := storetest.OwnPostgres(t, "--tls", "--passwords")
	if !strings.Contains(c.URL, "sslmode=verify-full&sslrootcert=") {
		t.Fatalf("a --tls cluster's URL does not verify its certificate: %s", c.URL)
	}
	rest, _ := strings.CutPrefix(c.URL, "postgres://postgres@")
	host, query, _ := strings.Cut(rest, "/postgres?")

	db, err := store.OpenPostgres(t.Context(), c.URL)
	if err != nil {
		t.Fatal(err)
	}
	var tls bool
	if err := db.SQL().QueryRow(`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`).Scan(&tls); err != nil || !tls {
		t.Fatalf("the store's connection uses TLS: %v (%v)", tls, err)
	}
	mem := store.NewMemoryService(db, nil)
	remember(t, mem, senior, memory.EntryWrite{Content: "Deploys go out on Tuesdays."})
	if hits := search(t, mem, senior, memory.Query{Text: "deploys"}); len(hits) != 1 {
		t.Errorf("search over TLS = %v, want the memory", hits)
	}
	for _, q := range []string{`CREATE ROLE ann LOGIN PASSWORD 'right-horse'`, `CREATE DATABASE ann_db OWNER ann`, `CREATE DATABASE not_anns`} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	other := storetest.UnknownCA(t)
	msg := refusedFor(t, "postgres://postgres@"+host+"/postgres?sslmode=verify-full&sslrootcert="+other, "")
	wantWords(t, msg, "the TLS certificate of the server "+host+" failed verification", "signed by an unknown authority", "sslrootcert")

	msg = refusedFor(t, "postgres://ann:wrong-horse@"+host+"/ann_db?"+query, "wrong-horse")
	wantWords(t, msg, `authentication failed for user "ann" on `+host, "correct the password")

	// PostgreSQL 15 lets only a database's owner create tables in its
	// public schema; ann may not read the tables postgres made either.
	msg = refusedFor(t, "postgres://ann:right-horse@"+host+"/not_anns?"+query, "right-horse")
	wantWords(t, msg, `its user "ann" may not create tables in schema public`, "GRANT CREATE ON SCHEMA public")
	msg = refusedFor(t, "postgres://ann:right-horse@"+host+"/postgres?"+query, "right-horse")
	wantWords(t, msg, `its user "ann" may not use memory-mcp's tables in schema public (permission denied for table schema_migrations)`)

	_, err = store.OpenPostgres(t.Context(), "postgres://postgres@"+host+"/postgres?sslmode=verify-full&sslrootcert=/no/such/ca.crt")
	if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "the database URL's TLS settings cannot be used: unable to read CA file") {
		t.Errorf("an sslrootcert that cannot be read: %v, want EINVALID saying the TLS settings cannot be used", err)
	}

	c.Certify("db.example.com")
	msg = refusedFor(t, c.URL, "")
	wantWords(t, msg, "the TLS certificate of the server "+host+" failed verification", `it is not for the host "127.0.0.1"`,
		"connect by a name the certificate holds")
	c.Certify("127.0.0.1", "localhost")
	db, err = store.OpenPostgres(t.Context(), "postgres://ann:right-horse@"+host+"/ann_db?"+query)
	if err != nil {
		t.Fatalf("with the certificate reissued for the host: %v", err)
	}
	db.Close()

	plain := storetest.OwnPostgres(t)
	plainHost, _, _ := strings.Cut(strings.TrimPrefix(plain.URL, "postgres://postgres@"), "/")
	msg = refusedFor(t, "postgres://postgres:s3cret@"+plainHost+"/postgres?sslmode=require", "s3cret")
	wantWords(t, msg, "the server "+plainHost+" refused TLS", "enable ssl on the server", "sslmode=prefer", "sslmode=disable")
}

// TestPostgresRefusesMistakesInTheURL: a password with a raw @ or / (which
// the driver, as libpq, would split into the host or database, quoting
// the rest of the password in every message) is refused naming the
// escape and quoting nothing; a misspelt parameter, which the driver
// passes to the server as a setting, is refused naming it and not as
// EBUSY; so is a database its user may only read, at the first open and
// at a later one. An unknown sslmode names the ones there are; a port
// nothing listens on stays EBUSY, saying why.
func TestPostgresRefusesMistakesInTheURL(t *testing.T) {
	url := storetest.PostgresDatabaseURL(t) // postgres://user@host:port/db?sslmode=disable
	rest, _ := strings.CutPrefix(url, "postgres://")
	user, rest, _ := strings.Cut(rest, "@")
	base, query, _ := strings.Cut(rest, "?")
	for _, bad := range []string{"Zq@Xk:w/Rj%x", "Zq@Xkvw", "12/Vb@x"} {
		_, err := store.OpenPostgres(t.Context(), "postgres://"+user+":"+bad+"@"+base+"?"+query)
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "percent-encode @ in the password as %40") {
			t.Errorf("password %q: %v", bad, err)
		}
		for _, part := range []string{"Xk", "Rj", "Vb"} {
			if err != nil && strings.Contains(err.Error(), part) && strings.Contains(bad, part) {
				t.Errorf("password %q: the message quotes %q of it: %v", bad, part, err)
			}
		}
	}

	_, err := store.OpenPostgres(t.Context(), "postgres://"+user+"@"+base+"?sslmode=requir")
	if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "sslmode is none of disable, allow, prefer, require, verify-ca and verify-full") {
		t.Errorf("an unknown sslmode: %v", err)
	}
	// nothing listens on the port: retryable, and saying why
	_, err = store.OpenPostgres(t.Context(), "postgres://"+user+"@127.0.0.1:1/postgres?"+query)
	if memory.ErrorCode(err) != memory.EBUSY || !strings.Contains(err.Error(), "is unreachable (dial tcp 127.0.0.1:1: connect: connection refused)") {
		t.Errorf("a port nothing listens on: %v", err)
	}

	msg := refusedFor(t, "postgres://"+user+"@"+base+"?"+strings.Replace(query, "sslmode", "sslmod", 1), "")
	wantWords(t, msg, `refused a setting of the URL: unrecognized configuration parameter "sslmod"`, "correct or remove that URL parameter")

	raw, err := storetest.OpenPostgresSQL(url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	readOnly := func(on string) {
		t.Helper()
		if _, err := raw.Exec(`DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = ` + on + `', current_database()); END $$`); err != nil {
			t.Fatal(err)
		}
	}
	readOnly("on")
	msg = refusedFor(t, url, "")
	wantWords(t, msg, "is read-only for its user", "CREATE TABLE", "default_transaction_read_only")
	readOnly("off")
	db, err := store.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	readOnly("on")
	db, err = store.OpenPostgres(t.Context(), url)
	if err == nil {
		err = db.UseProvenanceKey(t.Context(), make([]byte, store.ProvenanceKeySize))
		db.Close()
	}
	if err == nil || memory.ErrorCode(err) == memory.EBUSY || !strings.Contains(err.Error(), "is read-only for its user") {
		t.Errorf("a read-only database that has the schema: %v", err)
	}
}

// TestPostgresRefusesWhatIsNotPostgreSQL: a URL whose port has another
// program behind it is a set-up mistake, not an outage. A server that
// answers in another protocol is refused at once, permanently, saying
// that it is not PostgreSQL and to correct the host or port, whatever the
// sslmode; one that accepts the connection and stays silent (an HTTP
// server waits for a request line) cannot be told from a stalled
// PostgreSQL, so it stays EBUSY but says what to check; a port nothing
// listens on stays a retryable outage.
func TestPostgresRefusesWhatIsNotPostgreSQL(t *testing.T) {
	for name, greeting := range map[string]string{
		"http": "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
		"ssh":  "SSH-2.0-OpenSSH_9.6\r\n", // S is also PostgreSQL's yes to TLS
	} {
		host := greeter(t, greeting)
		for _, mode := range []string{"disable", "prefer", "require"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				msg := refusedFor(t, "postgres://ann:s3cret@"+host+"/team?connect_timeout=5&sslmode="+mode, "s3cret")
				wantWords(t, msg, "the server "+host+" does not speak PostgreSQL's protocol", "correct the host or port in the URL")
			})
		}
	}

	silent := httptest.NewServer(http.NotFoundHandler())
	defer silent.Close()
	silentHost := silent.Listener.Addr().String()
	_, err := store.OpenPostgres(t.Context(), "postgres://ann@"+silentHost+"/team?connect_timeout=1&sslmode=disable")
	if memory.ErrorCode(err) != memory.EBUSY || !strings.Contains(err.Error(), "the server "+silentHost+" accepted the connection but did not answer") ||
		!strings.Contains(err.Error(), "if another program listens on that port") {
		t.Errorf("a server that never answers: %v, want EBUSY saying it accepted the connection and what to check", err)
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedHost := closed.Addr().String()
	closed.Close()
	_, err = store.OpenPostgres(t.Context(), "postgres://ann@"+closedHost+"/team?connect_timeout=5&sslmode=disable")
	if memory.ErrorCode(err) != memory.EBUSY || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a closed port: %v, want EBUSY (an outage: retry)", err)
	}
}

// greeter listens on a port of its own, writing greeting to every
// connection and then reading what comes until the client leaves, as a
// server of another protocol does; it returns the host and port.
func greeter(t *testing.T, greeting string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte(greeting))
				io.Copy(io.Discard, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// TestPostgresRefusesTLSFilesThatAreNotPEM: an sslrootcert, sslcert or
// sslkey naming a file that is there but holds no certificate or key (the
// wrong file, or one in DER form) is EINVALID naming the parameter and the
// file, so the operator knows which of the URL's files to replace.
func TestPostgresRefusesTLSFilesThatAreNotPEM(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.crt")
	if err := os.WriteFile(garbage, []byte("\x30\x82\x01\x0anot a certificate at all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ query, words string }{
		{"sslmode=verify-full&sslrootcert=" + garbage, "sslrootcert " + garbage + " holds no certificate in PEM form"},
		{"sslmode=require&sslcert=" + garbage + "&sslkey=" + garbage, "sslkey " + garbage + " holds no private key in PEM form"},
	} {
		for _, url := range []string{"postgres://ann@127.0.0.1:1/team?" + tt.query, "host=127.0.0.1 port=1 user=ann dbname=team " + strings.ReplaceAll(tt.query, "&", " ")} {
			_, err := store.OpenPostgres(t.Context(), url)
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("%s: %v, want EINVALID saying %q", url, err, tt.words)
			}
		}
	}
}
