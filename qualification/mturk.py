"""The screening test as an MTurk QualificationType that MTurk grades itself:
a QuestionForm `Test` of 40 SelectionAnswer questions and an `AnswerKey` with a
PercentageMapping, so a worker's qualification value is their percent correct."""

from xml.sax.saxutils import escape

from django.utils import timezone

from hits.models import Worker
from qualification.models import Attempt
from qualification.services import grant_record

QUESTION_FORM_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2017-11-06/QuestionForm.xsd"
ANSWER_KEY_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/AnswerKey.xsd"
MAX_XML_BYTES = 65_535


def question_form_xml(test):
    questions = "".join(
        f"<Question><QuestionIdentifier>item-{item.pk}</QuestionIdentifier><IsRequired>true</IsRequired>"
        f"<QuestionContent><Text>{escape(item.text)}</Text></QuestionContent>"
        "<AnswerSpecification><SelectionAnswer><StyleSuggestion>radiobutton</StyleSuggestion><Selections>"
        "<Selection><SelectionIdentifier>1</SelectionIdentifier><Text>Counterfactual</Text></Selection>"
        "<Selection><SelectionIdentifier>0</SelectionIdentifier><Text>Not counterfactual</Text></Selection>"
        "</Selections></SelectionAnswer></AnswerSpecification></Question>"
        for item in test.items.all())
    overview = escape(test.instructions)
    return (f'<QuestionForm xmlns="{QUESTION_FORM_NS}"><Overview><Title>{escape(test.title)}</Title>'
            f"<Text>{overview}</Text></Overview>{questions}</QuestionForm>")


def answer_key_xml(test):
    items = list(test.items.all())
    questions = "".join(
        f"<Question><QuestionIdentifier>item-{item.pk}</QuestionIdentifier><AnswerOption>"
        f"<SelectionIdentifier>{item.answer}</SelectionIdentifier><AnswerScore>1</AnswerScore></AnswerOption>"
        "</Question>" for item in items)
    return (f'<AnswerKey xmlns="{ANSWER_KEY_NS}">{questions}<QualificationValueMapping><PercentageMapping>'
            f"<MaximumSummedScore>{len(items)}</MaximumSummedScore></PercentageMapping></QualificationValueMapping>"
            "</AnswerKey>")


def qualification_type_create(*, test, provider):
    """Create the QualificationType on MTurk (once) and remember its id on the test."""
    if test.mturk_qualification_type_id:
        return test.mturk_qualification_type_id
    form, key = question_form_xml(test), answer_key_xml(test)
    for name, xml in (("Test", form), ("AnswerKey", key)):
        if len(xml.encode("utf-8")) > MAX_XML_BYTES:
            raise ValueError(f"{test}: the {name} XML is over {MAX_XML_BYTES:,} bytes; use shorter sentences")
    # Found by name if this account has it already (a database reset, a second site on one account).
    test.mturk_qualification_type_id = provider.qualification_type(
        name=f"{test.title} ({test.name} v{test.version})", description=test.instructions[:2000], Test=form,
        AnswerKey=key, TestDurationInSeconds=test.duration, RetryDelayInSeconds=test.retake_delay,
        Keywords="counterfactual, qualification")
    test.save(update_fields=["mturk_qualification_type_id"])
    return test.mturk_qualification_type_id


def qualification_sync(*, test, provider):
    """Pull MTurk-graded scores into our records: an attempt per worker, a grant for a pass."""
    token, synced = None, 0
    while True:
        options = {"QualificationTypeId": test.mturk_qualification_type_id, "MaxResults": 100}
        if token:
            options["NextToken"] = token
        page = provider.client.list_workers_with_qualification_type(**options)
        for qualification in page["Qualifications"]:
            worker, _ = Worker.objects.get_or_create(provider="mturk", external_id=qualification["WorkerId"])
            score = int(qualification["IntegerValue"])
            passed = score >= test.pass_threshold
            now = timezone.now()
            if not Attempt.objects.filter(test=test, worker=worker, score=score).exists():
                Attempt.objects.create(test=test, worker=worker, started=now, deadline=now, submitted=now,
                                       score=score, passed=passed)
            if passed:
                grant_record(test=test, worker=worker, score=score)
            synced += 1
        token = page.get("NextToken")
        if not token:
            return synced
