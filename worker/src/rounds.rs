//! Multi round-trip requests (MCP 2026-07-28) on the worker's side: the
//! client input one round of a request has, what the call asked for and did
//! not get, and the `InputRequiredResult` that asks for it.
//!
//! The stateless era has no server requests. A call that needs the client
//! (a form for the user, a question for its model, its roots) asks through
//! its notifier by a key; in this era the asking is answered from
//! [`Round`]: the answers the request carries, by key, or, for a key without
//! one, a pending input request. A round that leaves any pending answers
//! [`Round::input_required`] whatever the call returned; the client asks,
//! then sends the request again with the answers, and the call runs again
//! from its start, this time finding them.
//!
//! What the request carries: its `inputResponses` (this round's answers) and
//! its `requestState`, which the router has verified and opened to
//! `{"answers": ...}`, the answers earlier rounds used. An
//! `InputRequiredResult` carries, as its plain state, the answers this round
//! used, so a call asking in several rounds gets all of them in the last
//! one; the router seals it. Answers the call did not ask for are ignored.

use gsmcp_ipc::era::{INPUT_REQUESTS, INPUT_REQUIRED, INPUT_RESPONSES, REQUEST_STATE};
use serde_json::{json, Map, Value};

/// One round of a multi round-trip request.
#[derive(Debug, Default)]
pub struct Round {
    /// Every answer this round has: the state's, then this request's.
    answers: Map<String, Value>,
    /// The answers the call used, by key.
    used: Map<String, Value>,
    /// What the call asked for and has no answer to, by key.
    pending: Map<String, Value>,
    /// The request carried a state the router verified.
    resumed: bool,
}

/// The client's result for an input request, checked against what `method`
/// answers; `Err` says what is wrong with it.
pub fn check_answer(method: &str, answer: &Value) -> Result<(), String> {
    let Some(object) = answer.as_object() else {
        return Err("it is not an object".into());
    };
    let ok = match method {
        "elicitation/create" => object
            .get("action")
            .and_then(Value::as_str)
            .is_some_and(|a| matches!(a, "accept" | "decline" | "cancel")),
        "sampling/createMessage" => object.contains_key("content"),
        "roots/list" => object.get("roots").is_some_and(Value::is_array),
        _ => true,
    };
    match (ok, method) {
        (true, _) => Ok(()),
        (false, "elicitation/create") => {
            Err("an elicitation result needs action accept, decline or cancel".into())
        }
        (false, "sampling/createMessage") => Err("a sampling result needs content".into()),
        (false, _) => Err("a roots result needs a roots array".into()),
    }
}

impl Round {
    /// The round a request's params describe; takes `inputResponses` and
    /// `requestState` out of them. The router has checked both: anything
    /// else than objects is treated as no answers.
    pub fn take(params: &mut Map<String, Value>) -> Round {
        let mut round = Round::default();
        if let Some(Value::Object(mut state)) = params.remove(REQUEST_STATE) {
            round.resumed = true;
            if let Some(Value::Object(answers)) = state.remove("answers") {
                round.answers = answers;
            }
        }
        if let Some(Value::Object(answers)) = params.remove(INPUT_RESPONSES) {
            round.answers.extend(answers);
        }
        round
    }

    /// Whether the request carried a verified state from an earlier round.
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// The answer to `key`, if the round has one (it is then carried on to
    /// later rounds); else `method` with `params` becomes a pending input
    /// request. `Err` says why the client's answer is not a result of
    /// `method` (it is not carried on).
    pub fn answer_or_ask(
        &mut self,
        key: &str,
        method: &str,
        params: Value,
    ) -> Result<Option<Value>, String> {
        match self.answers.get(key) {
            Some(answer) => {
                check_answer(method, answer)?;
                self.used.insert(key.to_string(), answer.clone());
                Ok(Some(answer.clone()))
            }
            None => {
                self.pending.insert(
                    key.to_string(),
                    json!({ "method": method, "params": params }),
                );
                Ok(None)
            }
        }
    }

    /// The `InputRequiredResult` of a round that asked for what it did not
    /// have: the input requests and, as plain state, the answers it used.
    pub fn input_required(self) -> Option<Value> {
        if self.pending.is_empty() {
            return None;
        }
        Some(json!({
            "resultType": INPUT_REQUIRED,
            INPUT_REQUESTS: self.pending,
            REQUEST_STATE: { "answers": self.used },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn a_round_answers_what_it_has_and_asks_for_the_rest() {
        let mut p = params(json!({
            "name": "t",
            "inputResponses": {"b": {"action": "accept"}, "extra": {"x": 1}},
            "requestState": {"answers": {"a": {"roots": []}, "b": {"action": "decline"}}},
        }));
        let mut round = Round::take(&mut p);
        assert_eq!(p, params(json!({"name": "t"})), "both fields are taken");
        assert!(round.resumed());
        assert_eq!(
            round.answer_or_ask("a", "roots/list", json!({})),
            Ok(Some(json!({"roots": []})))
        );
        // this request's answer wins over the state's
        assert_eq!(
            round.answer_or_ask("b", "elicitation/create", json!({})),
            Ok(Some(json!({"action": "accept"})))
        );
        assert_eq!(
            round.answer_or_ask("c", "sampling/createMessage", json!({"maxTokens": 5})),
            Ok(None)
        );
        // an answer of the wrong kind is refused and not carried on
        assert!(round
            .answer_or_ask("extra", "roots/list", json!({}))
            .is_err());
        let irr = round.input_required().unwrap();
        assert_eq!(irr["resultType"], "input_required");
        assert_eq!(
            irr["inputRequests"],
            json!({"c": {"method": "sampling/createMessage", "params": {"maxTokens": 5}}})
        );
        // the used answers are carried, the unasked-for one is not
        assert_eq!(
            irr["requestState"],
            json!({"answers": {"a": {"roots": []}, "b": {"action": "accept"}}})
        );
    }

    #[test]
    fn a_round_that_asked_nothing_new_requires_no_input() {
        let mut round = Round::take(&mut params(json!({"inputResponses": {"a": {"roots": []}}})));
        assert!(!round.resumed());
        assert!(round
            .answer_or_ask("a", "roots/list", json!({}))
            .unwrap()
            .is_some());
        assert!(round.input_required().is_none());
        assert!(Round::default().input_required().is_none());
    }

    #[test]
    fn answers_are_checked_against_their_method() {
        let table = [
            (
                "elicitation/create",
                json!({"action": "accept", "content": {}}),
                true,
            ),
            ("elicitation/create", json!({"action": "cancel"}), true),
            ("elicitation/create", json!({"action": "maybe"}), false),
            ("elicitation/create", json!({"content": {}}), false),
            (
                "sampling/createMessage",
                json!({"role": "assistant", "content": {"type": "text", "text": "x"}}),
                true,
            ),
            (
                "sampling/createMessage",
                json!({"role": "assistant"}),
                false,
            ),
            ("roots/list", json!({"roots": [{"uri": "file:///x"}]}), true),
            ("roots/list", json!({"roots": {}}), false),
            ("roots/list", json!(12345), false),
        ];
        for (method, answer, ok) in table {
            assert_eq!(
                check_answer(method, &answer).is_ok(),
                ok,
                "{method} {answer}"
            );
        }
    }
}
