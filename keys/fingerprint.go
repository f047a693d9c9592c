// Package keys says who a player is: the fingerprint of their SSH public key,
// whether the key may play on a club server (an authorized_keys allowlist),
// whether it belongs to an admin, what display names are acceptable, how to
// make untrusted strings safe for a terminal, and the one-time codes that link
// a second key to a player.
//
// Nothing here touches the network or the database; the store keeps players,
// keys and link codes.
package keys

import "golang.org/x/crypto/ssh"

// Fingerprint returns the SHA256 fingerprint of pub in OpenSSH's format
// ("SHA256:" followed by unpadded base64), the ID under which a key is known.
// A nil key has no fingerprint and yields "".
func Fingerprint(pub ssh.PublicKey) string {
	if pub == nil {
		return ""
	}
	return ssh.FingerprintSHA256(pub)
}
