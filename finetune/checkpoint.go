package finetune

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
)

// An adapter is kept as a checkpoint file in the data directory's adapters
// folder, one file per version, never rewritten once deployed:
//
//	magic      8 bytes  "MMCPADPT"
//	format     uint16   checkpointFormat
//	version    uint32   the adapter's version (1, 2, ...)
//	dim, rank  uint32, uint32
//	base       uint16 length, then the base embedder's ID (UTF-8)
//	keycheck   uint64   the word key's check (0 without words)
//	words      uint32 count, then per word: uint64 hash, float32 factor,
//	           in ascending order of hash
//	U, V       dim×rank float32 each
//	checksum   32 bytes SHA-256 of everything before it
//
// all little-endian. A file is refused, saying why, when any of it is off:
// a reader must never build an embedder from a damaged or foreign file,
// since every vector it made would be stored beside the memories.

const (
	checkpointMagic  = "MMCPADPT"
	checkpointFormat = 1
	// maxDim bounds what a checkpoint may claim, so that a damaged header
	// cannot make the reader allocate without end (the largest embedding
	// models have a few thousand dimensions).
	maxDim = 1 << 14
)

// ErrCheckpoint is wrapped by every refusal of a checkpoint file.
var ErrCheckpoint = errors.New("not a usable adapter checkpoint")

// MarshalBinary encodes a as a checkpoint. The same adapter always encodes
// to the same bytes.
func (a *Adapter) MarshalBinary() ([]byte, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString(checkpointMagic)
	b.Write(le.AppendUint16(nil, checkpointFormat))
	for _, v := range []uint32{uint32(a.Version), uint32(a.Dim), uint32(a.Rank)} {
		b.Write(le.AppendUint32(nil, v))
	}
	b.Write(le.AppendUint16(nil, uint16(len(a.Base))))
	b.WriteString(a.Base)
	b.Write(le.AppendUint64(nil, a.KeyCheck))
	hashes := make([]uint64, 0, len(a.Words))
	for h := range a.Words {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	b.Write(le.AppendUint32(nil, uint32(len(hashes))))
	for _, h := range hashes {
		b.Write(le.AppendUint64(nil, h))
		b.Write(le.AppendUint32(nil, math.Float32bits(a.Words[h])))
	}
	for _, m := range [][]float32{a.U, a.V} {
		for _, x := range m {
			b.Write(le.AppendUint32(nil, math.Float32bits(x)))
		}
	}
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes(), nil
}

// check says what makes a unusable, if anything.
func (a *Adapter) check() error {
	switch {
	case a.Base == "" || len(a.Base) > math.MaxUint16 || !utf8.ValidString(a.Base):
		return fmt.Errorf("%w: base embedder id %q", ErrCheckpoint, a.Base)
	case a.Version < 1:
		return fmt.Errorf("%w: version %d", ErrCheckpoint, a.Version)
	case a.Dim < 1 || a.Dim > maxDim || a.Rank < 1 || a.Rank > a.Dim:
		return fmt.Errorf("%w: %d dimensions at rank %d", ErrCheckpoint, a.Dim, a.Rank)
	case len(a.U) != a.Dim*a.Rank || len(a.V) != a.Dim*a.Rank:
		return fmt.Errorf("%w: maps of %d and %d numbers for %d dimensions at rank %d", ErrCheckpoint, len(a.U), len(a.V), a.Dim, a.Rank)
	case len(a.Words) > 0 && a.KeyCheck == 0:
		return fmt.Errorf("%w: word weights without a key check", ErrCheckpoint)
	}
	for _, m := range [][]float32{a.U, a.V} {
		for i, x := range m {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: map entry %d is %v", ErrCheckpoint, i, x)
			}
		}
	}
	for h, f := range a.Words {
		if !(f > 0) || math.IsInf(float64(f), 0) {
			return fmt.Errorf("%w: word %016x weighs %v", ErrCheckpoint, h, f)
		}
	}
	return nil
}

// UnmarshalBinary decodes a checkpoint, refusing (with ErrCheckpoint) one
// that is truncated, damaged, of another format or not a checkpoint.
func (a *Adapter) UnmarshalBinary(data []byte) error {
	if len(data) < len(checkpointMagic) || string(data[:len(checkpointMagic)]) != checkpointMagic {
		return fmt.Errorf("%w: it does not start as one (%d bytes)", ErrCheckpoint, len(data))
	}
	if len(data) < len(checkpointMagic)+2+sha256.Size {
		return fmt.Errorf("%w: truncated at %d bytes", ErrCheckpoint, len(data))
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return fmt.Errorf("%w: its checksum does not match its contents (damaged or truncated)", ErrCheckpoint)
	}
	r := &reader{b: body[len(checkpointMagic):]}
	if f := r.u16(); f != checkpointFormat {
		return fmt.Errorf("%w: format %d, which this build does not read (it reads %d)", ErrCheckpoint, f, checkpointFormat)
	}
	out := Adapter{Version: int(r.u32()), Dim: int(r.u32()), Rank: int(r.u32())}
	out.Base = string(r.bytes(int(r.u16())))
	out.KeyCheck = r.u64()
	if err := out.readWords(r); err != nil {
		return err
	}
	if r.err == nil && (out.Dim < 1 || out.Dim > maxDim || out.Rank < 1 || out.Rank > out.Dim) {
		return fmt.Errorf("%w: %d dimensions at rank %d", ErrCheckpoint, out.Dim, out.Rank)
	}
	out.U, out.V = r.floats(out.Dim*out.Rank), r.floats(out.Dim*out.Rank)
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%w: %d bytes past its end", ErrCheckpoint, len(r.b))
	}
	if err := out.check(); err != nil {
		return err
	}
	*a = out
	return nil
}

// readWords reads the word table, in strictly ascending order of hash.
func (a *Adapter) readWords(r *reader) error {
	n := int(r.u32())
	if r.err == nil && n > len(r.b)/12 {
		return fmt.Errorf("%w: %d words claimed, %d bytes left", ErrCheckpoint, n, len(r.b))
	}
	if n > 0 {
		a.Words = make(map[uint64]float32, n)
	}
	var last uint64
	for i := range n {
		h, f := r.u64(), math.Float32frombits(r.u32())
		if r.err != nil {
			return r.err
		}
		if i > 0 && h <= last {
			return fmt.Errorf("%w: word table out of order at entry %d", ErrCheckpoint, i)
		}
		a.Words[h], last = f, h
	}
	return nil
}

// reader reads little-endian fields, remembering the first overrun.
type reader struct {
	b   []byte
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = fmt.Errorf("%w: truncated", ErrCheckpoint)
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u16() uint16 {
	if b := r.bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) floats(n int) []float32 {
	if r.err == nil && n > len(r.b)/4 {
		r.err = fmt.Errorf("%w: truncated", ErrCheckpoint)
	}
	if r.err != nil {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(r.u32())
	}
	return out
}

// AdapterDir is the data directory's folder of checkpoints.
const AdapterDir = "adapters"

// CheckpointName is the file name of a checkpoint of base's adapter of the
// given version: the base's ID with every character but letters, digits,
// '.', '_' and '-' as '_', then "-ft<version>-", the first 8 hex digits of
// the checkpoint's SHA-256 and ".adapter". The digest keeps two runs that
// trained the same version at once from writing over each other's file:
// the one that deploys second is refused, and the first's file stays as
// recorded.
func CheckpointName(base string, version int, data []byte) string {
	safe := strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, base)
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s-ft%d-%x.adapter", safe, version, sum[:4])
}

// WriteCheckpoint writes data to path so that a crash at any moment leaves
// either no file or the whole file there: a temporary file in the same
// folder, synced, renamed into place, and the folder synced.
func WriteCheckpoint(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone once renamed; a leftover otherwise
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync checkpoint: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("put checkpoint in place: %w", err)
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// ReadCheckpoint reads the checkpoint at path and refuses it unless it is
// whole, has the given SHA-256 (hex, as recorded when it was deployed; ""
// skips this) and is the adapter of the given version over base.
func ReadCheckpoint(path, sum string, base memory.Embedder, version int) (*Adapter, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read adapter checkpoint: %w", err)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(data)); sum != "" && got != sum {
		return nil, fmt.Errorf("%s: %w: it is not the file that was deployed (SHA-256 %s, recorded %s)", path, ErrCheckpoint, got, sum)
	}
	var a Adapter
	if err := a.UnmarshalBinary(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if a.Base != base.ID || a.Dim != base.Dim || a.Version != version {
		return nil, fmt.Errorf("%s: %w: it is version %d of an adapter over %s (%d dimensions), not version %d over %s (%d)",
			path, ErrCheckpoint, a.Version, a.Base, a.Dim, version, base.ID, base.Dim)
	}
	return &a, nil
}
