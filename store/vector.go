package store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// encodeVector stores a vector as little-endian float32s: compact, exact, and
// readable by any SQLite client.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVectorInto reads what encodeVector wrote, appending to dst, which it
// may reuse. A NaN or infinite component is an error: such a vector has no
// cosine.
func decodeVectorInto(dst []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector blob is %d bytes, not a multiple of 4", len(b))
	}
	for i := 0; i < len(b); i += 4 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("vector component %d is %v", i/4, x)
		}
		dst = append(dst, x)
	}
	return dst, nil
}

// decodeVectorDim is decodeVectorInto for a vector that must have dim
// dimensions; the error says what makes blob unusable.
func decodeVectorDim(dst []float32, blob []byte, dim int) ([]float32, error) {
	vec, err := decodeVectorInto(dst, blob)
	if err == nil && len(vec) != dim {
		err = fmt.Errorf("vector has %d dimensions, want %d", len(vec), dim)
	}
	return vec, err
}

// isZero reports whether v has no direction (an embedder's answer for text
// with no known words); such vectors cannot be ranked by cosine.
func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
