package storetest

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PostgresFilesHolding returns the relations of db's database (its tables,
// TOAST tables, indexes and catalogs: every file of the database's
// directory in the cluster) whose files' raw bytes hold s, as written or in
// lower case (a tsvector keeps words lower-cased). It reads the files as
// they are: pages PostgreSQL holds in memory reach them at its next
// checkpoint. The test runs where the cluster's files are and may read
// them (as root, or as its owner).
func PostgresFilesHolding(t testing.TB, db *sql.DB, s string) []string {
	t.Helper()
	var dataDir, dbOID string
	if err := db.QueryRow(`SELECT current_setting('data_directory'), oid::text FROM pg_database WHERE datname = current_database()`).Scan(&dataDir, &dbOID); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // file node -> relation
	rows, err := db.Query(`SELECT pg_relation_filenode(oid)::text, oid::regclass::text FROM pg_class WHERE pg_relation_filenode(oid) IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var node, rel string
		if err := rows.Scan(&node, &rel); err != nil {
			t.Fatal(err)
		}
		names[node] = rel
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(dataDir, "base", dbOID)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("the test reads the cluster's files: %v", err)
	}
	var found []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if os.IsNotExist(err) { // dropped meanwhile
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) || bytes.Contains(b, []byte(strings.ToLower(s))) {
			node, _, _ := strings.Cut(strings.SplitN(e.Name(), "_", 2)[0], ".")
			rel := names[node]
			if rel == "" {
				rel = "a file no relation names"
			}
			found = append(found, rel+" ("+e.Name()+")")
		}
	}
	return found
}
