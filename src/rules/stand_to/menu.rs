//! Stand To!'s actions as the player's menu shows them: what each takes
//! and in which phase, one function per action or group, in the menu's
//! order. Stand To!'s commands name figures by their number in the roster.
//! What an action takes of the man's turn comes from the data's `[turn]`
//! lists, not from this file.

use serde_json::json;

use super::data::TurnData;
use crate::rules::describe::{ActionSpec, ParamKind, ParamSpec};

/// Every Stand To! action, each line saying what the data's `[turn]`
/// lists time it as.
pub fn actions(turn: &TurnData) -> Vec<ActionSpec> {
    let mut out = vec![
        fire("Aimed fire", "aimed", "an aimed shot at the target"),
        fire("Snap fire", "snap", "a snap shot at the target"),
        melee(),
        aim(),
        aim_at_location(),
        fire_at_location(),
        ActionSpec::new("load", "Load", "load a round for an aimed shot")
            .param(me("figure", "the man who loads")),
        ActionSpec::new("fire-gun", "Gun fires", "the crew fires its gun")
            .param(me("gun", "the gun"))
            .in_phases(&["fire"]),
        movement(),
        ActionSpec::new("prone", "Prone", "go prone, or stand up")
            .param(me("figure", "the figure"))
            .param(ParamSpec::given(
                "prone",
                ParamKind::Flag,
                "down (yes) or up (no)",
            )),
        order(),
        ActionSpec::new("spot", "Spot", "a scout searches an area")
            .param(me("scout", "the scout"))
            .param(ParamSpec::given(
                "center_in",
                ParamKind::Point,
                "the centre of the area",
            ))
            .in_phases(&["observe"]),
    ];
    out.extend(reactions());
    out.extend(mounts());
    for spec in &mut out {
        if let Some(words) = timing(turn, spec.name) {
            spec.doc = format!("{} ({words})", spec.doc).into();
        }
    }
    out
}

/// What the data's lists say an action takes: "All of the following
/// actions can be accomplished in a single turn" (`single_turn`), "The
/// following actions take no time at all" (`no_time`).
fn timing(turn: &TurnData, name: &str) -> Option<&'static str> {
    if turn.single_turn.iter().any(|n| n == name) {
        Some("takes his turn")
    } else if turn.no_time.iter().any(|n| n == name) {
        Some("takes no time at all")
    } else {
        None
    }
}

/// The figure who acts, by number.
fn me(name: &'static str, doc: &'static str) -> ParamSpec {
    ParamSpec::actor(name, ParamKind::FigureNumber, doc)
}

/// A shot at the clicked target in `mode` (aimed or snap).
fn fire(label: &'static str, mode: &str, doc: &'static str) -> ActionSpec {
    ActionSpec::new("fire", label, doc)
        .param(me("shooter", "the man who fires"))
        .param(ParamSpec::target(
            "target",
            ParamKind::FigureNumber,
            "the man fired at",
        ))
        .param(
            ParamSpec::optional(
                "mode",
                ParamKind::Word(vec!["aimed", "snap"]),
                "aimed or snap",
            )
            .preset(json!(mode)),
        )
        .param(ParamSpec::flag("rapid", "rapid fire (repeaters)"))
        .param(ParamSpec::optional(
            "aim_use",
            ParamKind::Word(vec!["best", "hit", "save"]),
            "how a taken aim is used",
        ))
        .param(ParamSpec::flag("at_mount", "at the rider's mount"))
        .in_phases(&["fire"])
}

fn melee() -> ActionSpec {
    ActionSpec::new("melee", "Melee", "the actor attacks the target in melee")
        .param(ParamSpec::actor(
            "attackers",
            ParamKind::FigureNumbers,
            "the attackers",
        ))
        .param(ParamSpec::target(
            "defenders",
            ParamKind::FigureNumbers,
            "the defenders",
        ))
        .in_phases(&["melee"])
}

fn aim() -> ActionSpec {
    ActionSpec::new(
        "aim",
        "Aim",
        "take aim at the target: the bonus is ready next turn",
    )
    .param(me("figure", "the man who aims"))
    .param(ParamSpec::target(
        "target",
        ParamKind::FigureNumber,
        "the man aimed at",
    ))
    .in_phases(&["fire"])
}

/// "A soldier can also aim at a location."
fn aim_at_location() -> ActionSpec {
    ActionSpec::new(
        "aim-at-location",
        "Aim at a location",
        "aim at a place: he may fire at once at an enemy who appears there, in either side's turn, with no aiming bonus",
    )
    .param(me("figure", "the man who aims"))
    .param(ParamSpec::given(
        "center_in",
        ParamKind::Point,
        "the centre of the area he covers",
    ))
    .in_phases(&["fire"])
}

/// "If anything appears there, he can immediately fire at it."
fn fire_at_location() -> ActionSpec {
    ActionSpec::new(
        "fire-at-location",
        "Fire at the covered area",
        "fire at once at the enemy who has just appeared in the area he aims at (aimed, no aiming bonus)",
    )
    .param(me("shooter", "the man who covers the area"))
    .param(ParamSpec::target(
        "target",
        ParamKind::FigureNumber,
        "the enemy who appeared",
    ))
}

fn movement() -> ActionSpec {
    ActionSpec::new("move", "Move", "a figure moves along a path at a pace")
        .param(me("figure", "the figure that moves"))
        .param(ParamSpec::path_in())
        .param(ParamSpec::given(
            "facing_deg",
            ParamKind::Number,
            "facing at the end",
        ))
        .param(ParamSpec::given(
            "pace",
            ParamKind::Word(vec!["crawl", "walk", "doubletime", "charge", "evade"]),
            "the pace",
        ))
        .param(ParamSpec::optional(
            "mount_level",
            ParamKind::Number,
            "a rider's speed level",
        ))
        .in_phases(&["move"])
}

fn order() -> ActionSpec {
    ActionSpec::new("order", "Order", "a leader gives an order")
        .param(me("giver", "the leader"))
        .param(ParamSpec::given(
            "to",
            ParamKind::FigureNumbers,
            "the men it is for",
        ))
        .param(ParamSpec::given("order", ParamKind::Text, "the order"))
        .param(
            ParamSpec::given(
                "via",
                ParamKind::Json(r#"{"via": "shout"}"#),
                r#"{"via": "shout"}, {"via": "hand-signal"} or {"via": "musician", "musician": N}"#,
            )
            .preset(json!({"via": "shout"})),
        )
        .in_phases(&["non-combat"])
}

/// Reactions, the side's preservation, and the rolls between battles.
fn reactions() -> Vec<ActionSpec> {
    vec![
        ActionSpec::new(
            "first-attack",
            "First attack",
            "a novice leader's first-attack reaction",
        )
        .param(me("leader", "the leader")),
        ActionSpec::new("rescue", "Rescue", "men go to the aid of a wounded comrade")
            .param(me("wounded", "the wounded man")),
        ActionSpec::new("shed", "Shed", "the side sheds a preservation point").param(
            ParamSpec::given("side", ParamKind::Number, "the side, by number"),
        ),
        ActionSpec::new("advance", "Advance", "a figure advances")
            .param(me("figure", "the figure")),
        ActionSpec::new("recover", "Recover", "a wounded man's recovery roll")
            .param(me("figure", "the wounded man"))
            .param(ParamSpec::given(
                "cared_for",
                ParamKind::Flag,
                "cared for by a comrade",
            )),
        ActionSpec::new(
            "roll-experience",
            "Roll experience",
            "roll a figure's experience",
        )
        .param(ParamSpec::actor("figure", ParamKind::Figure, "the figure")),
    ]
}

/// A rider's mount: dismounting and keeping it.
fn mounts() -> Vec<ActionSpec> {
    let rider = || ParamSpec::actor("figure", ParamKind::Figure, "the rider");
    vec![
        ActionSpec::new(
            "dismount",
            "Dismount",
            "a rider gets down and sees to his mount",
        )
        .param(rider())
        .param(ParamSpec::given(
            "by",
            ParamKind::Word(vec!["horseholder", "tree", "peg"]),
            "how his mount is kept",
        ))
        .param(ParamSpec::optional(
            "holder",
            ParamKind::Figure,
            "the horseholder",
        )),
        ActionSpec::new(
            "drive-peg",
            "Drive the peg",
            "one more turn driving his mount's peg",
        )
        .param(rider()),
    ]
}
