package finetune

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func testAdapter() *Adapter {
	a := &Adapter{Base: "test-base", Version: 3, Dim: 4, Rank: 2, U: make([]float32, 8), V: make([]float32, 8),
		Words: map[uint64]float32{9: 0.5, 2: 0.25, 7: 0.75}, KeyCheck: 42}
	for i := range a.U {
		a.U[i], a.V[i] = float32(i)/10, -float32(i)/7
	}
	return a
}

func TestCheckpointRoundTrip(t *testing.T) {
	a := testAdapter()
	b, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Adapter
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, a) {
		t.Errorf("round trip gave %+v, want %+v", got, *a)
	}
	again, _ := got.MarshalBinary()
	if !bytes.Equal(b, again) {
		t.Error("the decoded adapter encodes to other bytes")
	}
}

// reseal replaces the checksum of a checkpoint edited in place, so that
// what the reader sees past the checksum is the edit.
func reseal(b []byte) []byte {
	body := b[:len(b)-sha256.Size]
	sum := sha256.Sum256(body)
	return append(bytes.Clone(body), sum[:]...)
}

func TestCheckpointRefusesBadFiles(t *testing.T) {
	good, err := testAdapter().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "does not start as one"},
		{"another file", "SQLite format 3\x00 and more bytes than the header", "does not start as one"},
		{"magic only", checkpointMagic, "truncated"},
		{"truncated", string(good[:len(good)-5]), "checksum does not match"},
		{"a flipped bit", string(edit(func(b []byte) []byte { b[40] ^= 1; return b })), "checksum does not match"},
		{"newer format", string(edit(func(b []byte) []byte { le.PutUint16(b[8:], 2); return reseal(b) })), "format 2"},
		{"rank above dimension", string(edit(func(b []byte) []byte { le.PutUint32(b[18:], 9); return reseal(b) })), "rank 9"},
		{"huge dimension", string(edit(func(b []byte) []byte { le.PutUint32(b[14:], 1<<30); return reseal(b) })), "dimensions"},
		{"trailing bytes", string(reseal(append(bytes.Clone(good[:len(good)-sha256.Size]), make([]byte, 4+sha256.Size)...))),
			"bytes past its end"},
		{"NaN in the map", string(edit(func(b []byte) []byte {
			le.PutUint32(b[len(b)-sha256.Size-4:], 0x7fc00000)
			return reseal(b)
		})), "is NaN"},
	}
	for _, tt := range tests {
		var a Adapter
		err := a.UnmarshalBinary([]byte(tt.data))
		if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrCheckpoint saying %q", tt.name, err, tt.want)
		}
	}
}

func TestCheckpointWordsInOrder(t *testing.T) {
	good, _ := testAdapter().MarshalBinary()
	// The first word entry starts after magic, format, three uint32, the
	// base's length and text, the key check and the count.
	at := 8 + 2 + 12 + 2 + len("test-base") + 8 + 4
	b := bytes.Clone(good)
	copy(b[at:at+12], good[at+12:at+24]) // the second entry twice
	var a Adapter
	if err := a.UnmarshalBinary(reseal(b)); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Errorf("a repeated word: %v, want out of order", err)
	}
}

func TestReadCheckpoint(t *testing.T) {
	dir := t.TempDir()
	a := testAdapter()
	b, _ := a.MarshalBinary()
	path := filepath.Join(dir, AdapterDir, CheckpointName(a.Base, a.Version, b))
	if err := WriteCheckpoint(path, b); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("adapters folder holds %d files, want the checkpoint alone (no temporary file left)", len(entries))
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(b))
	base := memory.Embedder{ID: "test-base", Dim: 4}
	if got, err := ReadCheckpoint(path, sum, base, 3); err != nil || !reflect.DeepEqual(got, a) {
		t.Fatalf("ReadCheckpoint = %+v, %v", got, err)
	}
	for _, tt := range []struct {
		name    string
		sum     string
		base    memory.Embedder
		version int
		want    string
	}{
		{"another file than deployed", strings.Repeat("0", 64), base, 3, "not the file that was deployed"},
		{"another base", sum, memory.Embedder{ID: "openai:x:4", Dim: 4}, 3, "not version 3 over openai:x:4"},
		{"another version", sum, base, 2, "not version 2 over test-base"},
	} {
		if _, err := ReadCheckpoint(path, tt.sum, tt.base, tt.version); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrCheckpoint saying %q", tt.name, err, tt.want)
		}
	}
}

func TestCheckpointName(t *testing.T) {
	// sha256("abc") starts ba7816bf.
	if got, want := CheckpointName("openai:text-embedding-3-small:1536", 2, []byte("abc")), "openai_text-embedding-3-small_1536-ft2-ba7816bf.adapter"; got != want {
		t.Errorf("CheckpointName = %q, want %q", got, want)
	}
	if got := CheckpointName("../../etc/x", 1, nil); strings.Contains(got, "/") {
		t.Errorf("CheckpointName kept a path separator: %q", got)
	}
}

// FuzzCheckpoint: the reader refuses, with ErrCheckpoint, whatever is not a
// whole checkpoint, and what it accepts encodes back to the same bytes. Each
// input is also read with a checksum that matches it, so that the fields
// past the checksum are fuzzed too.
func FuzzCheckpoint(f *testing.F) {
	good, _ := testAdapter().MarshalBinary()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(checkpointMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		inputs := [][]byte{data}
		if len(data) >= sha256.Size {
			inputs = append(inputs, reseal(data))
		}
		for _, in := range inputs {
			var a Adapter
			if err := a.UnmarshalBinary(in); err != nil {
				if !errors.Is(err, ErrCheckpoint) {
					t.Fatalf("refused without ErrCheckpoint: %v", err)
				}
				continue
			}
			again, err := a.MarshalBinary()
			if err != nil || !bytes.Equal(again, in) {
				t.Fatalf("accepted a checkpoint that encodes to other bytes (%v)", err)
			}
		}
	})
}
