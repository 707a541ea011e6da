package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"fmt"
)

// universal joins thin Mach-O executables into one universal ("fat") binary,
// as Apple's lipo -create does: a big-endian header listing each slice's CPU
// and its page-aligned offset, then the slices unchanged. Each slice keeps
// its own code signature (the Go linker signs darwin/arm64 binaries ad hoc),
// and macOS runs the slice of its CPU. The bundle's manifest can choose a
// command per OS but not per CPU, so the bundle carries one such binary for
// macOS on Intel and Apple silicon.
func universal(thin ...[]byte) ([]byte, error) {
	type slice struct {
		cpu, sub uint32
		align    uint32 // log2
		data     []byte
	}
	var slices []slice
	for _, t := range thin {
		f, err := macho.NewFile(bytes.NewReader(t))
		if err != nil {
			return nil, fmt.Errorf("not a thin Mach-O file: %v", err)
		}
		align := uint32(12) // 4 KiB pages on Intel
		if f.Cpu == macho.CpuArm64 {
			align = 14 // 16 KiB pages on Apple silicon
		}
		slices = append(slices, slice{uint32(f.Cpu), f.SubCpu, align, t})
	}
	const fatMagic = 0xcafebabe
	var out bytes.Buffer
	head := []uint32{fatMagic, uint32(len(slices))}
	offset := uint32(8 + 20*len(slices))
	for i := range slices {
		s := &slices[i]
		offset = alignUp(offset, 1<<s.align)
		head = append(head, s.cpu, s.sub, offset, uint32(len(s.data)), s.align)
		offset += uint32(len(s.data))
	}
	if err := binary.Write(&out, binary.BigEndian, head); err != nil {
		return nil, err
	}
	for _, s := range slices {
		out.Write(make([]byte, int(alignUp(uint32(out.Len()), 1<<s.align))-out.Len()))
		out.Write(s.data)
	}
	return out.Bytes(), nil
}

func alignUp(n, a uint32) uint32 { return (n + a - 1) &^ (a - 1) }
