// Command dist makes memory-mcp's release artifacts, byte for byte the same
// from the same commit with the same Go release:
//
//	make dist     # go run ./scripts/dist archives: one archive per platform and checksums
//	make mcpb     # go run ./scripts/dist mcpb: the Claude Desktop bundle and server.json
//	make notices  # go run ./scripts/dist notices: THIRD_PARTY_NOTICES.md
//
// Every binary is pure Go (CGO_ENABLED=0) built with -trimpath and
// -buildvcs=false and stamped with -version; every archive entry carries the
// -epoch time (SOURCE_DATE_EPOCH: the commit's time), owner 0 and a fixed
// mode, in name order. The bundle is packed by the official MCPB CLI
// (packaging/mcpb); only its clock fields are then set to the same epoch.
// packaging/README.md says what each artifact holds.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"time"
)

// platform is one GOOS/GOARCH pair memory-mcp is released for.
type platform struct{ OS, Arch string }

func (p platform) String() string { return p.OS + "/" + p.Arch }

// exe is the binary's file name on p.
func (p platform) exe() string {
	if p.OS == "windows" {
		return "memory-mcp.exe"
	}
	return "memory-mcp"
}

// platforms are the release platforms, in the order the checksums list them.
var platforms = []platform{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// host is the platform this program runs on.
func host() platform { return platform{runtime.GOOS, runtime.GOARCH} }

// options are what every subcommand is given.
type options struct {
	version string    // the stamp, as the Makefile's VERSION (v1.2.3, or git describe's output)
	out     string    // the artifact directory
	epoch   time.Time // every archive entry's time
	only    []platform
	root    string // the repository's root
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("dist: ")
	var o options
	var epoch int64
	var only string
	flag.StringVar(&o.version, "version", "", "version to stamp (required for archives and mcpb)")
	flag.StringVar(&o.out, "out", "dist", "directory for the artifacts")
	flag.Int64Var(&epoch, "epoch", 0, "time of every archive entry, in seconds since 1970 (default $SOURCE_DATE_EPOCH)")
	flag.StringVar(&only, "platforms", "", "comma-separated GOOS/GOARCH pairs to build (default: all six)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./scripts/dist [flags] archives|mcpb|notices")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	if o.root, err = repoRoot(); err != nil {
		log.Fatal(err)
	}
	if epoch == 0 {
		epoch = envEpoch()
	}
	o.epoch = time.Unix(epoch, 0).UTC()
	if o.only, err = parsePlatforms(only); err != nil {
		log.Fatal(err)
	}
	switch cmd := flag.Arg(0); cmd {
	case "archives":
		err = needVersion(o, func() error { _, err := makeArchives(o); return err })
	case "mcpb":
		err = needVersion(o, func() error { _, err := makeBundle(o); return err })
	case "notices":
		var text string
		if text, err = notices(o.root); err == nil {
			err = os.WriteFile(o.root+"/THIRD_PARTY_NOTICES.md", []byte(text), 0o644)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func needVersion(o options, f func() error) error {
	if o.version == "" {
		return fmt.Errorf("-version is required")
	}
	return f()
}

// envEpoch is $SOURCE_DATE_EPOCH, or 2000-01-01 (zip's clock starts in 1980).
func envEpoch() int64 {
	var e int64
	if _, err := fmt.Sscan(os.Getenv("SOURCE_DATE_EPOCH"), &e); err == nil && e > 0 {
		return e
	}
	return 946684800
}

func parsePlatforms(s string) ([]platform, error) {
	if s == "" {
		return platforms, nil
	}
	var out []platform
	for _, f := range strings.Split(s, ",") {
		if f == "host" {
			out = append(out, host())
			continue
		}
		ok := false
		for _, p := range platforms {
			if p.String() == f {
				out, ok = append(out, p), true
			}
		}
		if !ok {
			return nil, fmt.Errorf("unknown platform %q (have %v or host)", f, platforms)
		}
	}
	return out, nil
}
