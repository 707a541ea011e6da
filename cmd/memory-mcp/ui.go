package main

import (
	"net/http"

	"github.com/memory-mcp/memory-mcp/ui"
)

// reviewPage is the review page for human curators over the app's services,
// served under /ui. It belongs behind the server's authentication, which
// puts the caller's identity into each request's context; it refuses a
// request without one (401) or whose identity is not human (403). signIn
// (nil: none) checks a credential pasted into its sign-in page and opens a
// session, signOut ends one. Its forms are signed with key, which every
// process on the data directory shares (nil: a key of this process's own).
func reviewPage(a *app, key []byte, signIn ui.SignInFunc, signOut ui.SignOutFunc) http.Handler {
	return ui.New(ui.Services{Facts: a.facts, Promotion: a.promotion, Approvals: a.gates, Memories: a.memories,
		Metrics: a.gates, Blocks: a.blocks, Erasure: a.memories, Gates: a.gates, Run: a.run, Log: a.log},
		ui.Options{Prefix: "/ui", Key: key, SignIn: signIn, SignOut: signOut})
}
