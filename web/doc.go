// Package web is the club's page: a small read-only web site served from
// the arcade's binary (--web). The front page shows who is online, the
// command to connect with the host key's fingerprint, today's daily
// board, the race ratings of each rule set and the arenas; an arena's
// page its live standings and its top game drawn in HTML; a player's page
// what they made public (ratings, rating history, rated races, arena
// results); /status whether the server is up, as a page or as JSON.
//
// Pages are server-rendered with html/template (every name and player
// text escaped) and readable without JavaScript; a few lines of script
// keep them live over Server-Sent Events. The events come from what the
// arcade already knows in memory (the lobby's observers, fed by the bus
// on a cluster, and the arenas' changes), rendered once per change and
// fanned out to every viewer: a viewer costs the database nothing, and a
// page load reads it a little (the front page's data is cached for a
// second or two). Nothing is writable, nothing is stored, no cookie is
// set.
//
// The limits follow the SSH side's: open connections overall and per
// address (behind a balancer, the X-Forwarded-For address it gives, only
// from the balancer's addresses), and a viewer that stops reading is
// dropped, never waited on.
package web
