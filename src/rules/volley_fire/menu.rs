//! Volley Fire!'s actions as the player's menu shows them: what each takes
//! and in which phase (from the data file's `turn.action_phase`).

use serde_json::json;

use crate::rules::describe::{ActionSpec, ParamKind, ParamSpec};

/// Every Volley Fire! action; `phase_of` gives an action's phase by name.
pub fn actions(phase_of: impl Fn(&str) -> Option<String>) -> Vec<ActionSpec> {
    let unit = |doc| ParamSpec::actor("unit", ParamKind::Unit, doc);
    let rough = ParamSpec::flag(
        "rough",
        "through rough ground: half move (default: read from the terrain)",
    );
    let mut out = vec![
        ActionSpec::new(
            "fire",
            "Unit fires",
            "the actor's unit fires at the target's unit",
        )
        .param(unit("the unit that fires"))
        .param(ParamSpec::target(
            "target",
            ParamKind::Unit,
            "the unit fired at",
        ))
        .param(
            ParamSpec::optional(
                "evade",
                ParamKind::Flag,
                "the target scouts try to evade: 3d6, an even total moves them that far away",
            )
            .preset(json!(false)),
        )
        .param(ParamSpec::preset_flag(
            "gun",
            "fire the gun the unit mans (one its crew left), as if the target is in cover",
            false,
        )),
        ActionSpec::new(
            "charge",
            "Unit charges",
            "the actor's unit charges the target's unit (move phase): it halts 1 in off and takes defensive fire",
        )
        .param(unit("the charging unit"))
        .param(ParamSpec::target("target", ParamKind::Unit, "the unit charged"))
        .param(ParamSpec::optional(
            "response",
            ParamKind::Json(r#"{"kind": "stand"}"#),
            r#"the charged unit's response: {"kind": "stand"} (default), {"kind": "reform", "formation": F}, {"kind": "evade"} or {"kind": "countercharge"}"#,
        ).preset(json!({"kind": "stand"})))
        .param(rough.clone()),
        ActionSpec::new(
            "melee",
            "Unit fights",
            "the actor's unit fights the target's unit in melee",
        )
        .param(ParamSpec::actor("attacker", ParamKind::Unit, "the attacking unit"))
        .param(ParamSpec::target("defender", ParamKind::Unit, "the unit attacked"))
        .param(ParamSpec::preset_flag(
            "from_rear",
            "the attack strikes its rear",
            false,
        ))
        .param(ParamSpec::preset_flag(
            "evade",
            "the defending scouts try to evade: 3d6, an even total moves them that far away",
            false,
        )),
        winner_move(rough.clone()),
        ActionSpec::new("move", "Move", "the unit moves its front centre to a point")
            .param(unit("the unit that moves"))
            .param(ParamSpec::given(
                "to_in",
                ParamKind::Point,
                "the new front centre",
            ))
            .param(rough.clone())
            .param(ParamSpec::flag(
                "double_time",
                "two more d6 of inches, and heat-stroke casualties",
            ))
            .param(ParamSpec::flag(
                "fire_after",
                "a deployed gun moves one d6 and may fire this turn",
            )),
        ActionSpec::new("form", "Form", "the unit takes a new formation")
            .param(unit("the unit that forms"))
            .param(ParamSpec::given(
                "formation",
                ParamKind::Text,
                "a layout of the data file",
            ))
            .param(ParamSpec::optional(
                "facing_deg",
                ParamKind::Number,
                "new facing",
            ))
            .param(ParamSpec::optional(
                "to_in",
                ParamKind::Point,
                "new front centre",
            ))
            .param(rough),
        destroy_gun(),
        enter_building(),
        man_gun(),
        ActionSpec::new("regroup", "Regroup", "a shaken unit tries to regroup")
            .param(unit("the shaken unit")),
        ActionSpec::new("morale", "Army morale", "the side tests its army morale").param(
            ParamSpec::actor("side", ParamKind::Side, "the side that tests"),
        ),
    ];
    for a in &mut out {
        if let Some(p) = phase_of(a.name) {
            a.phases = vec![p];
        }
    }
    out
}

/// "The winner of the melee can reform and or reface on the objective, or
/// move one normal move distance and reface and reform."
fn winner_move(rough: ParamSpec) -> ActionSpec {
    ActionSpec::new(
        "winner-move",
        "Winner reforms",
        "the melee's winner reforms and refaces on the objective, or moves one normal move and reforms",
    )
    .param(ParamSpec::actor("unit", ParamKind::Unit, "the unit that won the melee"))
    .param(ParamSpec::optional(
        "formation",
        ParamKind::Text,
        "the new formation (default: the present one)",
    ))
    .param(ParamSpec::optional(
        "facing_deg",
        ParamKind::Number,
        "new facing",
    ))
    .param(ParamSpec::optional(
        "to_in",
        ParamKind::Point,
        "new front centre (default: stays on the objective)",
    ))
    .param(rough)
}

/// "To self-destroy a gun, announce same prior to any melee".
fn destroy_gun() -> ActionSpec {
    ActionSpec::new(
        "destroy-gun",
        "Destroy gun",
        "the gun crew destroys its gun before any melee of the phase (fails on a 6)",
    )
    .param(ParamSpec::actor("unit", ParamKind::Unit, "the gun crew"))
}

/// "To enter, must spend one turn halted outside".
fn enter_building() -> ActionSpec {
    ActionSpec::new(
        "enter-building",
        "Enter building",
        "the unit halts outside a building this turn (its fire at half) and goes in the next",
    )
    .param(ParamSpec::actor(
        "unit",
        ParamKind::Unit,
        "the unit that enters",
    ))
    .param(ParamSpec::given(
        "building",
        ParamKind::Text,
        "the building's terrain area name",
    ))
}

/// "Guns that are abandoned, crewless, or captured can be manned by
/// infantry or Dervish foot".
fn man_gun() -> ActionSpec {
    ActionSpec::new(
        "man-gun",
        "Man gun",
        "infantry or Dervish foot man a gun left on the table beside them",
    )
    .param(ParamSpec::actor(
        "unit",
        ParamKind::Unit,
        "the unit that mans it",
    ))
    .param(ParamSpec::optional(
        "facing_deg",
        ParamKind::Number,
        "turn the gun to this facing",
    ))
}
