//! TLS on the listening socket: loading the certificate chain and key
//! (`MCP_TLS_CERT`, `MCP_TLS_KEY`) into a rustls server configuration (TLS 1.2
//! and 1.3 only, HTTP/1.1 by ALPN), telling a plaintext client that this port
//! speaks HTTPS, and making a throw-away self-signed certificate for local use
//! (`gsmcp --make-self-signed DIR`).
//!
//! Everything that can be wrong with the files (missing, unparsable, a key
//! others may read, a key that does not match the certificate) is found at
//! start-up, before the port is bound.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// The first byte of every TLS connection: a handshake record.
const TLS_HANDSHAKE_RECORD: u8 = 0x16;

/// A loaded TLS configuration.
#[derive(Clone)]
pub struct Tls {
    acceptor: TlsAcceptor,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls")
    }
}

impl Tls {
    /// Loads and checks the certificate chain and private key.
    pub fn load(cert: &Path, key: &Path) -> Result<Tls, String> {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| {
                format!(
                    "MCP_TLS_CERT {}: cannot read a PEM certificate chain ({e})",
                    cert.display()
                )
            })?;
        if certs.is_empty() {
            return Err(format!(
                "MCP_TLS_CERT {}: holds no PEM certificate",
                cert.display()
            ));
        }
        crate::private::check_private_file(key, "MCP_TLS_KEY")?;
        let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| {
            format!(
                "MCP_TLS_KEY {}: cannot read a PEM private key ({e})",
                key.display()
            )
        })?;
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| format!("TLS: {e}"))?
            .with_no_client_auth()
            .with_single_cert(certs, key_der)
            .map_err(|e| {
                format!(
                    "MCP_TLS_CERT {} and MCP_TLS_KEY {} do not make a usable pair ({e})",
                    cert.display(),
                    key.display()
                )
            })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }

    /// Completes the server side of a handshake within `timeout`. A client that
    /// sends anything but a TLS handshake is answered, in plain HTTP, that this
    /// port speaks HTTPS, and the connection is closed.
    pub async fn accept(
        &self,
        stream: TcpStream,
        timeout: Duration,
    ) -> Result<TlsStream<TcpStream>, String> {
        let accepted = tokio::time::timeout(timeout, async {
            let mut first = [0u8; 1];
            let n = stream
                .peek(&mut first)
                .await
                .map_err(|e| format!("reading the first byte: {e}"))?;
            if n == 0 {
                return Err("closed before the handshake".to_string());
            }
            if first[0] != TLS_HANDSHAKE_RECORD {
                refuse_plaintext(stream).await;
                return Err("plaintext on the TLS port, refused".to_string());
            }
            self.acceptor
                .accept(stream)
                .await
                .map_err(|e| format!("TLS handshake failed: {e}"))
        })
        .await;
        accepted.unwrap_or_else(|_| Err(format!("no TLS handshake within {timeout:?}")))
    }
}

/// Answers a plaintext request on the TLS port with a plain 400 naming the fix.
async fn refuse_plaintext(mut stream: TcpStream) {
    let body = "This port speaks HTTPS only: use an https:// URL.\n";
    let response = format!(
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// The names a self-signed certificate made here is valid for.
pub const SELF_SIGNED_NAMES: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// Writes a new self-signed certificate (`cert.pem`) and its key (`key.pem`,
/// mode 0600) into `dir`, valid for this machine's loopback names and host
/// name. Answers the two paths.
pub fn make_self_signed(dir: &Path) -> Result<(std::path::PathBuf, std::path::PathBuf), String> {
    use std::os::unix::fs::DirBuilderExt;
    let shown = dir.display();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("{shown}: cannot create the directory ({e})"))?;
    let mut names: Vec<String> = SELF_SIGNED_NAMES.iter().map(|s| s.to_string()).collect();
    if let Ok(host) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        let host = host.trim();
        if !host.is_empty() && host != "localhost" && !host.contains(char::is_whitespace) {
            names.push(host.to_string());
        }
    }
    let key = rcgen::KeyPair::generate().map_err(|e| format!("cannot make a key: {e}"))?;
    let mut params = rcgen::CertificateParams::new(names)
        .map_err(|e| format!("cannot describe the certificate: {e}"))?;
    params.distinguished_name.push(
        rcgen::DnType::CommonName,
        "gsmcp self-signed (local use only)",
    );
    let cert = params
        .self_signed(&key)
        .map_err(|e| format!("cannot sign the certificate: {e}"))?;
    let cert_path = dir.join("cert.pem");
    let key_path = dir.join("key.pem");
    crate::private::write_new(&key_path, key.serialize_pem().as_bytes(), 0o600)?;
    crate::private::write_new(&cert_path, cert.pem().as_bytes(), 0o644)?;
    Ok((cert_path, key_path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn self_signed_pair_loads_and_bad_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("gsmcp-tls-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (cert, key) = make_self_signed(&dir).unwrap();
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        Tls::load(&cert, &key).unwrap();

        // the key as the certificate, the certificate as the key, a readable key
        let e = Tls::load(&key, &key).unwrap_err();
        assert!(e.contains("MCP_TLS_CERT"), "{e}");
        let open_cert = dir.join("cert-copy.pem");
        std::fs::copy(&cert, &open_cert).unwrap();
        std::fs::set_permissions(&open_cert, std::fs::Permissions::from_mode(0o600)).unwrap();
        let e = Tls::load(&cert, &open_cert).unwrap_err();
        assert!(e.contains("MCP_TLS_KEY"), "{e}");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o640)).unwrap();
        let e = Tls::load(&cert, &key).unwrap_err();
        assert!(e.contains("chmod 600"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
