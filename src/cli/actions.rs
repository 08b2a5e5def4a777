//! `spotter actions <rule-set>`: what each action of a rule set takes and
//! when, from the rule set's own description (the same one the app's action
//! panel is built from). Each line is a `spotter resolve --rule-action`
//! that can be typed.

use std::process::ExitCode;

use anyhow::Context;

use crate::rules::Registry;
use crate::rules::describe::{ActionSpec, Role};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rule set (stand-to, volley-fire, soldiers-in-time, little-colonial).
    pub rule_set: String,
    /// Print the descriptions as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let registry = Registry::builtin().context("the built-in rule data cannot be read")?;
    let rules = registry.get(&args.rule_set).with_context(|| {
        format!(
            "no rule set `{}`: give one of {}",
            args.rule_set,
            registry.names().join(", ")
        )
    })?;
    let actions = rules.actions();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&actions)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} actions (`spotter resolve --rule-action NAME --action-params JSON`):",
        rules.name()
    );
    for a in &actions {
        println!("{}", describe(a));
    }
    Ok(ExitCode::SUCCESS)
}

/// An action's lines: its usage, what it does, when, and its parameters.
fn describe(a: &ActionSpec) -> String {
    let when = if a.phases.is_empty() {
        "whenever the rules allow".to_owned()
    } else {
        format!("in the {} phase", a.phases.join(" or "))
    };
    let mut s = format!(
        "\n  {}\n    {} ({}; panel: \"{}\")",
        a.usage(),
        a.doc,
        when,
        a.label
    );
    for p in &a.params {
        let from = match p.role {
            Role::Actor => " (the figure who acts)",
            Role::Target => " (the figure acted on)",
            Role::Given => "",
        };
        s.push_str(&format!("\n      {}: {}{from}", p.name, p.doc));
    }
    s
}
