//! Little Colonial Rules' actions as the player's menu shows them: what
//! each takes (the rule set has one phase: orders, by card), one function
//! per action, in the menu's order.

use crate::rules::describe::{ActionSpec, ParamKind, ParamSpec};

/// Every Little Colonial Rules action.
pub fn actions() -> Vec<ActionSpec> {
    vec![
        fire(
            "Fire",
            "the actor alone fires at the target",
            ParamSpec::actor("firers", ParamKind::Figures, "the man who fires"),
            false,
        ),
        fire(
            "Formation fire",
            "the actor's formed unit fires at the target's side",
            ParamSpec::actor("firers", ParamKind::UnitFigures, "the unit's men"),
            true,
        ),
        close_combat(),
        draw(),
        ActionSpec::new(
            "play-reserved",
            "Play a reserved card",
            "a card kept in hand",
        )
        .param(ParamSpec::given("card", ParamKind::Text, "the card")),
        ActionSpec::new("move", "Move", "a figure moves along a path")
            .param(ParamSpec::actor(
                "figure",
                ParamKind::Figure,
                "the figure that moves",
            ))
            .param(ParamSpec::path_in()),
        artillery(),
        ActionSpec::new("rally", "Rally", "an officer rallies his men").param(ParamSpec::actor(
            "officer",
            ParamKind::Figure,
            "the officer",
        )),
        reform(),
        drag(),
        ActionSpec::new(
            "gather",
            "Gather wounded",
            "seriously wounded men behind the lines are gathered: they fire with doubled ranges",
        )
        .param(ParamSpec::actor(
            "wounded",
            ParamKind::Figures,
            "the wounded men",
        )),
        ActionSpec::new(
            "challenge",
            "Challenge",
            "while the other side aids its wounded, show what it wrote down (once a game)",
        )
        .param(ParamSpec::given(
            "side",
            ParamKind::Text,
            "the side that challenges",
        )),
    ]
}

/// The figures the firer removes first.
fn remove() -> ParamSpec {
    ParamSpec::optional(
        "remove",
        ParamKind::Figures,
        "the figures removed first, the firer's choice (within three soldiers before an NCO, six before an officer)",
    )
}

/// Fire by `firers` at the clicked target, one at one or in formation.
fn fire(label: &'static str, doc: &'static str, firers: ParamSpec, formation: bool) -> ActionSpec {
    ActionSpec::new("fire", label, doc)
        .param(firers)
        .param(ParamSpec::target(
            "target",
            ParamKind::Figure,
            "the figure fired at",
        ))
        .param(ParamSpec::preset_flag(
            "formation",
            "in formation",
            formation,
        ))
        .param(ParamSpec::preset_flag(
            "individual",
            "one at one",
            !formation,
        ))
        .param(remove())
}

fn close_combat() -> ActionSpec {
    ActionSpec::new(
        "close-combat",
        "Close combat",
        "the actor fights the target",
    )
    .param(ParamSpec::actor("a", ParamKind::Figure, "the attacker"))
    .param(ParamSpec::target("b", ParamKind::Figure, "the defender"))
    .param(ParamSpec::optional(
        "a_add",
        ParamKind::Number,
        "the attacker's extra dice",
    ))
    .param(ParamSpec::optional(
        "b_add",
        ParamKind::Number,
        "the defender's extra dice",
    ))
    .param(ParamSpec::flag(
        "a_single_rank",
        "attacker in a single rank",
    ))
    .param(ParamSpec::flag(
        "b_single_rank",
        "defender in a single rank",
    ))
}

fn draw() -> ActionSpec {
    ActionSpec::new("draw", "Draw a card", "the next order card")
        .opening()
        .param(ParamSpec::flag("reserve", "keep it in hand"))
        .param(ParamSpec::optional(
            "reinforcements",
            ParamKind::Words,
            "cards added at this reshuffle",
        ))
        .param(ParamSpec::optional(
            "then",
            ParamKind::Word(vec!["fire"]),
            "what the activated men do",
        ))
}

fn artillery() -> ActionSpec {
    ActionSpec::new(
        "artillery",
        "Gun fires",
        "a gun fires roundshot, grapeshot or shrapnel",
    )
    .param(ParamSpec::actor("gun", ParamKind::Figure, "the gun"))
    .param(ParamSpec::given(
        "ammo",
        ParamKind::Word(vec!["roundshot", "grapeshot", "shrapnel"]),
        "the shot",
    ))
    .param(ParamSpec::optional(
        "at_in",
        ParamKind::Point,
        "the point aimed at",
    ))
    .param(ParamSpec::optional(
        "target",
        ParamKind::Figure,
        "or a figure",
    ))
    .param(remove())
}

fn reform() -> ActionSpec {
    ActionSpec::new(
        "reform",
        "Reform",
        "an officer or NCO reforms his unit (5 cm a man)",
    )
    .param(ParamSpec::actor("unit", ParamKind::Unit, "the unit"))
    .param(ParamSpec::given(
        "moves",
        ParamKind::Json(r#"[{"figure": "Soldado Abad", "to_in": [10.0, 12.0]}]"#),
        r#"where each man goes: [{"figure": NAME, "to_in": [x, y]}, ...]"#,
    ))
}

fn drag() -> ActionSpec {
    ActionSpec::new(
        "drag",
        "Drag",
        "one or two men drag a seriously wounded comrade",
    )
    .param(ParamSpec::actor(
        "wounded",
        ParamKind::Figure,
        "the wounded man",
    ))
    .param(ParamSpec::given(
        "helpers",
        ParamKind::Figures,
        "one or two helpers",
    ))
    .param(ParamSpec::given(
        "to_in",
        ParamKind::Point,
        "one straight leg",
    ))
}
