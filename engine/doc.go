// Package engine holds the rules of Pyramid Solitaire: rule sets, deals,
// moves in notation, games with unlimited undo and redo, hints and the
// solver.
//
// The package is pure: it imports only the standard library, reads no
// clock and uses no global randomness. A deal comes from a 64-bit deal
// number through the package's own generator, so deal 42 is the same deal
// forever, on every machine.
//
// One engine plays every rule set: one or two decks (7 or 9 rows), 1, 2, 3
// or unlimited passes through the stock, a closed or open stock top, pairs
// of any two available cards or only with a pyramid card, the strict or the
// overlap cover rule, one waste pile or three, and the goal of clearing the
// pyramid or every card. See Rules.
package engine
