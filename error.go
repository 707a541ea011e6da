package memory

import (
	"errors"
	"fmt"
)

// Error codes. Every error a caller can act on carries one of these; anything
// else is internal and reaches clients only as "internal error". A write that
// waits (a note's pending outcome) is a result, not an error, so there is no
// code for it.
const (
	EINVALID   = "EINVALID"   // the input is malformed or breaks a rule
	ENOTFOUND  = "ENOTFOUND"  // the named thing does not exist (for this caller)
	ECONFLICT  = "ECONFLICT"  // the state moved on: stale version, already retracted
	EFORBIDDEN = "EFORBIDDEN" // the caller's identity may not do this
	EBUSY      = "EBUSY"      // another program held the database's lock too long; retry the call
	ERATELIMIT = "ERATELIMIT" // the caller wrote faster than its limit allows; the message says when to retry
	EHELD      = "EHELD"      // the write waits for a human's approval and was not applied; the message names the approval
	EINTERNAL  = "EINTERNAL"  // a bug or an I/O failure; details are logged, not returned
)

// Error is a domain error: a code and a message written for the model or person
// that made the call ("fact policy-jwt is at version 4, you sent expected_version 3").
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, EINTERNAL for errors that are not domain
// errors, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// Public returns err as a caller may see it: a domain error as it is, and
// anything else as EINTERNAL "internal error", since its details (paths,
// SQL) must not leak; internal says which, so that the edge logs the
// details once. Every MCP surface reports errors through it.
func Public(err error) (public *Error, internal bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, false
	}
	return &Error{Code: EINTERNAL, Message: "internal error"}, true
}

// ErrorMessage returns the message of a domain error, or "internal error" for
// anything else so that internals never leak to callers.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
