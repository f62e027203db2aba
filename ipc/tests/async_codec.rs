//! The async codec (feature `tokio`, which the router enables) over an in-memory
//! duplex pipe: frames round-trip, an oversize prefix is refused, a truncated
//! frame is an error and a clean close is `Closed`. Runs whenever the feature is
//! on, as it is in a workspace test run.
#![cfg(feature = "tokio")]

use gsmcp_ipc::*;
use tokio::io::AsyncWriteExt;

#[tokio::test]
async fn frames_cross_a_duplex_pipe() {
    let (mut a, mut b) = tokio::io::duplex(64);
    let frames = vec![
        ToWorker::Call {
            call_id: 1,
            request: Request {
                id: Some(Json::String("x".repeat(1000))),
                method: "ping".into(),
                params: None,
                progress_token: None,
            },
        },
        ToWorker::Break { hard: false },
        ToWorker::Shutdown,
    ];
    let sent = frames.clone();
    let writer = tokio::spawn(async move {
        for f in &sent {
            write_frame_async(&mut a, f).await.unwrap();
        }
    });
    for f in frames {
        assert_eq!(read_frame_async::<ToWorker, _>(&mut b).await.unwrap(), f);
    }
    writer.await.unwrap();
    assert!(matches!(
        read_frame_async::<ToWorker, _>(&mut b).await,
        Err(IpcError::Closed)
    ));
}

#[tokio::test]
async fn oversize_and_truncated_frames_are_errors() {
    let (mut a, mut b) = tokio::io::duplex(64);
    a.write_all(&(MAX_FRAME_LEN + 1).to_le_bytes())
        .await
        .unwrap();
    assert!(matches!(
        read_frame_async::<ToRouter, _>(&mut b).await,
        Err(IpcError::TooLarge(_))
    ));

    let (mut a, mut b) = tokio::io::duplex(64);
    let bytes = encode_frame(&ToRouter::ViewStatus {
        commits_behind: Some(1),
        needs_commit: false,
        must_abort: false,
    })
    .unwrap();
    a.write_all(&bytes[..bytes.len() - 1]).await.unwrap();
    drop(a);
    assert!(matches!(
        read_frame_async::<ToRouter, _>(&mut b).await,
        Err(IpcError::Io(_))
    ));

    let (mut a, mut b) = tokio::io::duplex(64);
    a.write_all(&[5, 0]).await.unwrap();
    drop(a);
    assert!(
        matches!(
            read_frame_async::<ToRouter, _>(&mut b).await,
            Err(IpcError::Io(_))
        ),
        "a cut prefix is not a clean close"
    );
}
