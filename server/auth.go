package server

import (
	"slices"
	"strings"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Algorithm lists offered by the server: nothing with SHA-1, no CBC, no
// encrypt-and-MAC. x/crypto adds the strict key exchange marker
// (kex-strict-s-v00@openssh.com, the Terrapin counter-measure) on its own.
// They are functions so that every connection gets fresh slices.

func kexAlgorithms() []string {
	return []string{
		gossh.KeyExchangeMLKEM768X25519,
		gossh.KeyExchangeCurve25519,
		gossh.KeyExchangeDH16SHA512,
	}
}

func cipherAlgorithms() []string {
	return []string{
		gossh.CipherAES256GCM,
		gossh.CipherAES128GCM,
		gossh.CipherChaCha20Poly1305,
		gossh.CipherAES256CTR,
		gossh.CipherAES128CTR,
	}
}

func macAlgorithms() []string {
	return []string{gossh.HMACSHA256ETM, gossh.HMACSHA512ETM}
}

// maxAuthTries is how many authentication attempts one connection gets.
const maxAuthTries = 6

// guestRefusal is shown to a client that offers no acceptable key when guests
// are not allowed.
const guestRefusal = "This server identifies players by their SSH key, and you offered none it accepts.\n" +
	"Make one with: ssh-keygen -t ed25519\n" +
	"then connect again (ssh -i ~/.ssh/id_ed25519 -o IdentitiesOnly=yes ...)."

// refusal is the message for a client that cannot log in.
func (s *Server) refusal() string {
	if s.cfg.Refusal != "" {
		return s.cfg.Refusal
	}
	return guestRefusal
}

// serverConfig builds the x/crypto configuration of one connection. It runs
// after onConnect, so the connection's state is in ctx.
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	var cs *connState
	if ctx != nil {
		cs = connStateOf(ctx)
	}
	return &gossh.ServerConfig{
		// A successful authentication moves the connection out of the
		// login budgets at once, before it opens any channel.
		AuthLogCallback: func(_ gossh.ConnMetadata, _ string, err error) {
			if err == nil && cs != nil {
				cs.authenticate()
			}
		},
		Config: gossh.Config{
			KeyExchanges: kexAlgorithms(),
			Ciphers:      cipherAlgorithms(),
			MACs:         macAlgorithms(),
		},
		// The default list still has ssh-rsa (SHA-1) and ssh-dss.
		PublicKeyAuthAlgorithms: gossh.SupportedAlgorithms().PublicKeyAuths,
		MaxAuthTries:            maxAuthTries,
	}
}

// publicKeyAuth only says yes or no. It may be called for keys the client
// never proves it holds (CVE-2024-45337), so it records nothing that
// decides anything: the session reads the proven key from s.PublicKey().
// The fingerprints of the keys it refuses are kept for the refusal's
// words only (refusalFor), told back to the client that offered them.
func (s *Server) publicKeyAuth(ctx ssh.Context, key ssh.PublicKey) (ok bool) {
	if s.cfg.AllowKey == nil {
		return true
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("AllowKey panicked; key refused", "panic", r)
			ok = false
		}
		if !ok && ctx != nil {
			noteRefused(ctx, gossh.FingerprintSHA256(key))
		}
	}()
	return s.cfg.AllowKey(key)
}

// maxRefusedShown is the most refused keys a refusal names: an agent
// may offer many.
const maxRefusedShown = 3

// refusedKeysKey holds the fingerprints of the keys a connection offered
// and was refused, for its refusal's words.
type refusedKeysKey struct{}

// noteRefused keeps fp among the connection's refused keys.
func noteRefused(ctx ssh.Context, fp string) {
	fps, _ := ctx.Value(refusedKeysKey{}).([]string)
	if len(fps) >= maxRefusedShown || slices.Contains(fps, fp) {
		return
	}
	ctx.SetValue(refusedKeysKey{}, append(slices.Clip(fps), fp))
}

// refusalFor is the refusal a connection is told: the server's words,
// and the fingerprints of the keys it offered and was refused, which is
// what the admins need to let one in.
func (s *Server) refusalFor(ctx ssh.Context) string {
	msg := s.refusal()
	fps, _ := ctx.Value(refusedKeysKey{}).([]string)
	switch len(fps) {
	case 0:
		return msg
	case 1:
		return msg + "\nSend your key's fingerprint to the admins: " + fps[0]
	}
	return msg + "\nSend the fingerprint of the key you play with to the admins; you offered:\n  " + strings.Join(fps, "\n  ")
}

// keyboardInteractiveAuth is how a client without a key gets in: when guests
// are allowed it asks nothing and says yes; otherwise it shows why the client
// is refused and says no. Either way the session has no public key, so a
// guest can never pass for a key holder.
func (s *Server) keyboardInteractiveAuth(ctx ssh.Context, challenge gossh.KeyboardInteractiveChallenge) bool {
	if s.cfg.Guests {
		return true
	}
	// Clients try keyboard-interactive several times (OpenSSH three): tell
	// them why once per connection. The mark decides nothing but that.
	if ctx.Value(refusalShownKey{}) == nil {
		ctx.SetValue(refusalShownKey{}, true)
		_, _ = challenge("", s.refusalFor(ctx), nil, nil) // the client may hang up instead of answering
	}
	return false
}

// refusalShownKey marks a connection that has been told why it is refused.
type refusalShownKey struct{}
