//! Reading logs of the older schemas (`spotter.gamelog/1` to `/3`). In
//! them Stand To!'s commands and events were the game's shared ones
//! (`"command": "fire"`, `"event": "shot-fired"`) and its per-figure state
//! sat on every figure (`pace`, `aiming_at`, `shots_this_turn` ...). Each
//! line of such a log is rewritten into today's form before it is read, so
//! an old game resumes exactly where it stopped. Lines already in today's
//! form pass unchanged (an old log without a schema may hold either).
//!
//! # Conventions
//! Works on the JSON of one record; a record it does not recognise is left
//! alone (reading it then says what is wrong, at its line).

use serde_json::{Map, Value, json};

use crate::core::TurnClock;

/// Stand To!'s commands that were shared commands before schema 4.
const STAND_TO_COMMANDS: [&str; 15] = [
    "load",
    "aim",
    "fire",
    "fire-gun",
    "melee",
    "move",
    "prone",
    "order",
    "spot",
    "first-attack",
    "rescue",
    "shed",
    "advance",
    "recover",
    "roll-experience",
];

/// Stand To!'s events that were shared events before schema 4.
const STAND_TO_EVENTS: [&str; 14] = [
    "fire-resolved",
    "melee-resolved",
    "aim-taken",
    "shot-fired",
    "healed",
    "idle",
    "obstacle-stage",
    "charge-turn-used",
    "prone",
    "order-given",
    "spotted",
    "experience",
    "first-attack-rolled",
    "preservation",
];

/// Stand To!'s figure fields that sat on every figure before schema 4 and
/// are stamped with the side's turn today ("this turn" was a counter reset
/// when the side's turn began).
const STAND_TO_TURN_KEYS: [&str; 5] = [
    "pace",
    "charged_through_rough",
    "aiming_at",
    "aim_ready",
    "shots_this_turn",
];

/// Stand To!'s figure fields that sat on every figure before schema 4 and
/// keep their name and value in its state.
const STAND_TO_KEPT_KEYS: [&str; 8] = [
    "prone",
    "load_progress",
    "charge_turns_used",
    "idle_until_turn",
    "order",
    "pending_order",
    "obstacle",
    "ammo",
];

/// Stand To!'s side fields that sat on every side before schema 4.
const STAND_TO_SIDE_KEYS: [&str; 3] = ["preservation_points", "broken", "first_attack_rolled"];

/// Rewrites one record of an old log into today's form.
pub fn upgrade_record(record: &mut Value) {
    let kind = record
        .get("kind")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match kind.as_deref() {
        Some("start") => {
            if let Some(state) = record.get_mut("state") {
                upgrade_state(state);
            }
        }
        Some("command") => {
            if let Some(c) = record.get_mut("command") {
                upgrade_command(c);
            }
        }
        Some("event") => {
            if let Some(e) = record.get_mut("event") {
                upgrade_event(e);
            }
        }
        _ => {}
    }
}

/// The object and its kind (`tag`) when the kind is one of `names`.
fn tagged<'a>(
    value: &'a mut Value,
    tag: &str,
    names: &[&str],
) -> Option<(&'a mut Map<String, Value>, String)> {
    let object = value.as_object_mut()?;
    let name = object.get(tag)?.as_str().filter(|n| names.contains(n))?;
    let name = name.to_owned();
    Some((object, name))
}

/// `{"command": "fire", ..fields}` becomes `{"command": "stand-to",
/// "action": "fire", "params": {..fields}}`.
fn upgrade_command(command: &mut Value) {
    let Some((object, name)) = tagged(command, "command", &STAND_TO_COMMANDS) else {
        return;
    };
    let mut params = std::mem::take(object);
    params.remove("command");
    *command = json!({ "command": "stand-to", "action": name, "params": params });
}

/// `{"event": "shot-fired", ..}` becomes `{"event": "stand-to", "what":
/// "shot-fired", ..}`.
fn upgrade_event(event: &mut Value) {
    if let Some((object, name)) = tagged(event, "event", &STAND_TO_EVENTS) {
        object.insert("event".into(), "stand-to".into());
        object.insert("what".into(), name.into());
    }
}

/// The start state: the side counters of orders go, each figure's Stand
/// To! fields move into its Stand To! state (of a Stand To! game; in any
/// other rule set's game they meant nothing and are dropped).
fn upgrade_state(state: &mut Value) {
    let Some(object) = state.as_object_mut() else {
        return;
    };
    object.remove("orders_this_turn");
    let stand_to = object.get("rule_set").and_then(Value::as_str) == Some("stand-to");
    let clock = TurnClock {
        turn: number(object.get("turn")).unwrap_or(1),
        active_side: number(object.get("active_side"))
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
        phase: 0,
    };
    if let Some(sides) = object.get_mut("sides").and_then(Value::as_array_mut) {
        for side in sides.iter_mut().filter_map(Value::as_object_mut) {
            upgrade_side(side, stand_to);
        }
    }
    let Some(figures) = object.get_mut("figures").and_then(Value::as_array_mut) else {
        return;
    };
    for figure in figures.iter_mut().filter_map(Value::as_object_mut) {
        let old: Map<String, Value> = STAND_TO_TURN_KEYS
            .iter()
            .chain(&STAND_TO_KEPT_KEYS)
            .filter_map(|k| figure.remove(*k).map(|v| ((*k).to_owned(), v)))
            .collect();
        if !stand_to || old.is_empty() {
            continue;
        }
        let side = number(figure.get("side"))
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        let own = clock.side_turn(side);
        let rules = figure
            .entry("rules")
            .or_insert_with(|| json!({ "rule_set": "stand-to" }));
        if let Some(rules) = rules.as_object_mut() {
            stand_to_status(rules, &old, own);
        }
    }
}

/// A side's Stand To! fields (`preservation_points`, `broken`,
/// `first_attack_rolled`) move into its Stand To! state.
fn upgrade_side(side: &mut Map<String, Value>, stand_to: bool) {
    let old: Vec<(String, Value)> = STAND_TO_SIDE_KEYS
        .iter()
        .filter_map(|k| side.remove(*k).map(|v| ((*k).to_owned(), v)))
        .filter(|(_, v)| !matches!(v, Value::Bool(false) | Value::Null) && v.as_u64() != Some(0))
        .collect();
    if !stand_to || old.is_empty() {
        return;
    }
    let rules = side
        .entry("rules")
        .or_insert_with(|| json!({ "rule_set": "stand-to" }));
    if let Some(rules) = rules.as_object_mut() {
        rules.extend(old);
    }
}

/// Today's Stand To! figure state from the old fields, "this turn" being
/// the figure's side's turn `own`.
fn stand_to_status(rules: &mut Map<String, Value>, old: &Map<String, Value>, own: u32) {
    let get = |k: &str| old.get(k).filter(|v| !v.is_null());
    let flag = |k: &str| get(k).and_then(Value::as_bool).unwrap_or(false);
    if let Some(pace) = get("pace").filter(|p| p.as_str() != Some("stationary")) {
        rules.insert(
            "moved".into(),
            json!({ "turn": own, "pace": pace, "through_rough": flag("charged_through_rough") }),
        );
    }
    let shots = number(get("shots_this_turn")).unwrap_or(0);
    if shots > 0 {
        rules.insert("shots".into(), json!({ "turn": own, "count": shots }));
    }
    if let Some(target) = get("aiming_at") {
        rules.insert("aiming_at".into(), target.clone());
        let from = if flag("aim_ready") { own } else { own + 1 };
        rules.insert("aim_ready_from".into(), from.into());
    }
    for key in STAND_TO_KEPT_KEYS {
        if let Some(v) = get(key) {
            rules.insert(key.into(), v.clone());
        }
    }
}

fn number(v: Option<&Value>) -> Option<u32> {
    v.and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stand_to_command_and_event_of_schema_3_read_as_stand_to_s_own() {
        let mut c = json!({"kind": "command", "n": 1, "command": {"command": "fire", "shooter": 0, "target": 6, "mode": "aimed"}});
        upgrade_record(&mut c);
        assert_eq!(
            c["command"],
            json!({"command": "stand-to", "action": "fire", "params": {"shooter": 0, "target": 6, "mode": "aimed"}})
        );
        let mut e = json!({"kind": "event", "n": 1, "event": {"event": "shot-fired", "figure": 0, "target": 6, "mode": "aimed"}});
        upgrade_record(&mut e);
        assert_eq!(e["event"]["event"], "stand-to");
        assert_eq!(e["event"]["what"], "shot-fired");
        // Shared ones and today's pass unchanged.
        for mut same in [
            json!({"kind": "command", "n": 2, "command": {"command": "end-phase"}}),
            c.clone(),
            json!({"kind": "event", "n": 2, "event": {"event": "moved", "figure": 1}}),
        ] {
            let before = same.clone();
            upgrade_record(&mut same);
            assert_eq!(same, before);
        }
    }

    #[test]
    fn a_stand_to_figure_s_old_fields_become_its_state_as_of_his_side_s_turn() {
        let mut start = json!({"kind": "start", "schema": "spotter.gamelog/3", "state": {
        "rule_set": "stand-to", "turn": 2, "active_side": 0, "orders_this_turn": [0, 0],
        "sides": [{"name": "British", "preservation_points": 2, "broken": false,
                   "first_attack_rolled": true, "preservation_limit": 6}],
        "figures": [
            {"name": "A", "side": 0, "pace": "charge", "charged_through_rough": true,
             "shots_this_turn": 1, "aiming_at": 3, "aim_ready": true, "ammo": 4},
            {"name": "B", "side": 1, "pace": "walk", "aiming_at": 0, "aim_ready": false,
             "shots_this_turn": 0, "rules": {"rule_set": "stand-to", "charging": "A"}}
        ]}});
        upgrade_record(&mut start);
        let s = &start["state"];
        assert!(s.get("orders_this_turn").is_none());
        assert_eq!(
            s["sides"][0],
            json!({"name": "British", "preservation_limit": 6, "rules": {"rule_set": "stand-to",
                   "preservation_points": 2, "first_attack_rolled": true}})
        );
        let a = &s["figures"][0];
        assert!(a.get("pace").is_none());
        assert_eq!(
            a["rules"],
            json!({"rule_set": "stand-to", "moved": {"turn": 2, "pace": "charge", "through_rough": true},
                   "shots": {"turn": 2, "count": 1}, "aiming_at": 3, "aim_ready_from": 2, "ammo": 4})
        );
        // Side 1 has not begun turn 2: his "this turn" is turn 1.
        let b = &s["figures"][1]["rules"];
        assert_eq!(b["charging"], "A");
        assert_eq!(b["moved"]["turn"], 1);
        assert_eq!(b["aim_ready_from"], 2);
    }
}
