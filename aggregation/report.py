"""Plain-text reports of an aggregation, for the command line and the demo."""


def write_report(out, run, workers=None):
    summary = run.summary
    out.write(f"aggregation {run.pk} of batch {run.batch_id}: {run.votes} votes; rules: {run.rules_text}")
    out.write("  outcomes: " + ", ".join(f"{name} {count}" for name, count in summary["outcomes"].items()))
    partial = summary["partial_negatives"]
    out.write(f"  4/5 negatives: kept {partial['kept']} of {partial['found']}")
    model = summary.get("model")
    if model and model.get("beside"):
        out.write(f"  {model_beside_said(run)}")
    elif model:
        skill = f"; skill ({run.method}) {model['skill']:.2f}" if model["skill"] is not None else ""
        out.write(f"  a model's vote, counted as one more voter, is in the outcome of {model['votes']} items with "
                  f"fewer people than the rules need{skill}")
    if run.alpha is not None:
        # No interval without bootstrap samples (--samples 0).
        interval = f", 95% CI [{run.alpha_low:.3f}, {run.alpha_high:.3f}]" if run.alpha_low is not None else ""
        out.write(f"  Krippendorff's alpha (nominal): {run.alpha:.3f}{interval}")
    for domain, figures in summary["by_domain"].items():
        if figures["alpha"] is not None:
            interval = f" [{figures['low']:.3f}, {figures['high']:.3f}]" if figures["low"] is not None else ""
            out.write(f"    {domain:<11} alpha {figures['alpha']:.3f}{interval} over {figures['items']} items")
    gold = summary["gold"]
    if gold["items"]:
        out.write(f"  aggregated labels vs known answers: {gold['correct']} of {gold['items']} "
                  f"({gold['accuracy']:.1%})")
    skills = run.method != "paper"
    out.write(f"  {'worker':<24} {'votes':>6} {'vs consensus':>13} {'vs gold':>9}"
              + (f" {'skill':>6}" if skills else "") + "  confusion (worker/majority)")
    for stat in (workers or run.worker_stats.select_related("worker__user").order_by("-consensus_accuracy", "pk")):
        consensus = f"{stat.consensus_accuracy:.1%}" if stat.consensus_accuracy is not None else "-"
        gold_accuracy = f"{stat.gold_accuracy:.1%}" if stat.gold_accuracy is not None else "-"
        confusion = " ".join(f"{key}:{value}" for key, value in sorted(stat.confusion.items()))
        skill = (f" {stat.skill:>6.2f}" if stat.skill is not None else f" {'-':>6}") if skills else ""
        out.write(f"  {stat.worker!s:<24} {stat.votes:>6} {consensus:>13} {gold_accuracy:>9}{skill}  {confusion}")


def model_beside_said(run):
    """A model read beside the people (batch_aggregate's with_model), in words: the command's and the page's."""
    model = run.summary["model"]
    skill = ("no skill (it voted on no item people voted on)" if model["skill"] is None else
             f"a skill of {model['skill']:.2f}, above {model['below']} of the {model['people']} people")
    changed = model["changed"]
    return (f"{model['name']} was read beside the people on {model['votes']} item{'s' * (model['votes'] != 1)}: "
            f"{run.method} gives it {skill}; it changes the label of {changed} item{'s' * (changed != 1)} from "
            f"what the people alone give")


def write_comparison(out, found):
    """`runs_compare` as text: what changed, and whose votes weigh less."""
    before, after = found["before"], found["after"]
    out.write(f"aggregation {before['run']} ({before['method']}) -> {after['run']} ({after['method']}): "
              f"{found['changed']} of {found['items']} items change label")
    for change, count in found["by_change"].items():
        out.write(f"  {count:>6}  {change}")
    for row in found["changes"][:20]:
        votes = ", ".join(f"{vote['worker']} ({_weight(vote['weight_before'])} -> {_weight(vote['weight_after'])})"
                          for vote in row["votes_for_the_losing_label"][:4])
        out.write(f"  item {row['key']}: {row['before']} -> {row['after']}"
                  + (f"; the losing label's votes: {votes}" if votes else ""))
    out.write("  lowest weights after: " + ", ".join(
        f"{row['worker']} {_weight(row['weight_before'])} -> {_weight(row['weight_after'])}"
        for row in found["workers"][:5]))


def _weight(value):
    return "-" if value is None else f"{value:.2f}"


def span_agreement_text(row):
    """One line: the sentences compared, token F1 per kind and token alpha with its interval."""
    if not row["sentences"]:
        return "no sentence has two annotators who marked spans"
    f1 = row["f1"]
    interval = f" [{row['low']:.3f}, {row['high']:.3f}]" if row["low"] is not None else ""
    alpha = f"{row['alpha']:.3f}{interval}" if row["alpha"] is not None else "undefined"
    return (f"{row['sentences']} sentences, {row['pairs']} pairs; token F1 antecedent {_f(f1['A'])}, consequent "
            f"{_f(f1['C'])}, both {_f(f1['all'])}; token alpha {alpha}")


def _f(value):
    return "n/a" if value is None else f"{value:.3f}"
