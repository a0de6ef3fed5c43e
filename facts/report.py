"""The Cheap Facts tables as text, for the command and the demo."""


def tables_text(found):
    lines = ["Table 1 (valid statements):",
             f"  {'':<14} {'texts':>6} {'entities':>9} {'per text':>9} {'statements':>11} {'per text':>9}"]
    for instruction, row in found["table1"].items():
        lines.append(f"  {instruction:<14} {row['texts']:>6} {row['entities']:>9} {row['entities_per_text']:>9.2f} "
                     f"{row['statements']:>11} {row['statements_per_text']:>9.2f}")
    lines += ["Table 2:", f"  {'':<34} {'count':>5} {'length':>7} {'BoW':>5} {'head':>5} {'middle':>7} {'tail':>5}"]
    for name, row in found["table2"].items():
        lines.append(f"  {name:<34} {row['count']:>5} {row['length']:>7.1f} {row['bow']:>5.2f} {row['head']:>5.0%} "
                     f"{row['middle']:>7.0%} {row['tail']:>5.0%}")
    return "\n".join(lines)
