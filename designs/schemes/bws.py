"""bws (best-worst scaling): the best and the worst of a tuple of options ("<prefix>-best", "<prefix>-worst")."""

from designs.schemes.base import AnswerProblem, SchemeType, pick, scheme_type


@scheme_type
class BestWorst(SchemeType):
    name = "bws"
    level = None  # tuples differ between items; scores come from counting, not agreement on a value

    def read(self, scheme, fields, record):
        options = record.options(scheme.items_key, scheme.tuple_size)
        best, worst = fields.get("best"), fields.get("worst")
        if not best and not worst:
            return None
        if not best or not worst:
            raise AnswerProblem(f"pick the {'best' if not best else 'worst'} too")
        numbers = [str(n) for n in range(1, len(options) + 1)]
        best, worst = pick(best, numbers, "options"), pick(worst, numbers, "options")
        if best == worst:
            raise AnswerProblem("the best and the worst must be different options")
        return {"best": options[int(best) - 1], "worst": options[int(worst) - 1]}
