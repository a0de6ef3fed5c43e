"""Plain-text reports of an aggregation, for the command line and the demo."""


def write_report(out, run, workers=None):
    summary = run.summary
    out.write(f"aggregation {run.pk} of batch {run.batch_id}: {run.votes} votes; rules: {run.rules_text}")
    out.write("  outcomes: " + ", ".join(f"{name} {count}" for name, count in summary["outcomes"].items()))
    partial = summary["partial_negatives"]
    out.write(f"  4/5 negatives: kept {partial['kept']} of {partial['found']}")
    if run.alpha is not None:
        out.write(f"  Krippendorff's alpha (nominal): {run.alpha:.3f}, "
                  f"95% CI [{run.alpha_low:.3f}, {run.alpha_high:.3f}]")
    for domain, figures in summary["by_domain"].items():
        if figures["alpha"] is not None:
            out.write(f"    {domain:<11} alpha {figures['alpha']:.3f} [{figures['low']:.3f}, {figures['high']:.3f}] "
                      f"over {figures['items']} items")
    gold = summary["gold"]
    if gold["items"]:
        out.write(f"  aggregated labels vs known answers: {gold['correct']} of {gold['items']} "
                  f"({gold['accuracy']:.1%})")
    out.write(f"  {'worker':<24} {'votes':>6} {'vs consensus':>13} {'vs gold':>9}  confusion (worker/majority)")
    for stat in (workers or run.worker_stats.select_related("worker__user").order_by("-consensus_accuracy", "pk")):
        consensus = f"{stat.consensus_accuracy:.1%}" if stat.consensus_accuracy is not None else "-"
        gold_accuracy = f"{stat.gold_accuracy:.1%}" if stat.gold_accuracy is not None else "-"
        confusion = " ".join(f"{key}:{value}" for key, value in sorted(stat.confusion.items()))
        out.write(f"  {stat.worker!s:<24} {stat.votes:>6} {consensus:>13} {gold_accuracy:>9}  {confusion}")
