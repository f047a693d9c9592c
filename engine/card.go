package engine

import (
	"fmt"
	"strings"
)

// Suit is a card's suit. Suits never matter to the rules; they are shown.
type Suit uint8

// The four suits, in the order used to build a fresh deck.
const (
	Clubs Suit = iota
	Diamonds
	Hearts
	Spades
)

// Letter is the suit's letter in deal text and notation: C, D, H or S.
func (s Suit) Letter() byte { return "CDHS"[s&3] }

// Symbol is the suit's Unicode symbol: ♣, ♦, ♥ or ♠.
func (s Suit) Symbol() string { return [4]string{"♣", "♦", "♥", "♠"}[s&3] }

// Red reports whether the suit is printed in red (diamonds and hearts).
func (s Suit) Red() bool { return s == Diamonds || s == Hearts }

// Card is one playing card. Its value is (rank-1)*4 + suit, so the 52
// distinct cards are 0 to 51; a double deck holds each value twice.
type Card uint8

// NewCard returns the card of a rank (1 = Ace … 13 = King) and suit.
func NewCard(rank int, s Suit) Card { return Card((rank-1)*4 + int(s&3)) }

// Rank is the card's rank and value: Ace 1, 2–10, Jack 11, Queen 12, King 13.
func (c Card) Rank() int { return int(c)/4 + 1 }

// Suit is the card's suit.
func (c Card) Suit() Suit { return Suit(c % 4) }

const rankLetters = "A23456789TJQK"

// RankString is the rank as players read it: A, 2–10, J, Q, K.
func (c Card) RankString() string {
	if c.Rank() == 10 {
		return "10"
	}
	return string(rankLetters[c.Rank()-1])
}

// String is the card in deal text: rank letter (T for ten) then suit letter,
// as in "7H", "TD", "KS".
func (c Card) String() string {
	return string([]byte{rankLetters[c.Rank()-1], c.Suit().Letter()})
}

// ParseCard reads a card written as a rank (A23456789TJQK, also 10) and a
// suit (CDHS), in any case: "7h", "10S", "Td".
func ParseCard(s string) (Card, error) {
	u := strings.ToUpper(s)
	if len(u) < 2 || len(u) > 3 {
		return 0, fmt.Errorf("unknown card %q: want a rank (A23456789TJQK or 10) then a suit (CDHS)", s)
	}
	rs, ss := u[:len(u)-1], u[len(u)-1]
	rank := 0
	if rs == "10" {
		rank = 10
	} else if len(rs) == 1 {
		rank = strings.IndexByte(rankLetters, rs[0]) + 1
	}
	suit := strings.IndexByte("CDHS", ss)
	if rank == 0 || suit < 0 {
		return 0, fmt.Errorf("unknown card %q: want a rank (A23456789TJQK or 10) then a suit (CDHS)", s)
	}
	return NewCard(rank, Suit(suit)), nil
}
