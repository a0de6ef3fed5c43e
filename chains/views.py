"""The organizer's pages of a workflow: its stages and statistics, and each chain's lineage on one page with
the decision on chains the loop limit sent to review."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import ORGANIZER, role_required
from chains.models import Chain, Step, Workflow
from chains.report import statistics
from chains.services import chain_decide, chain_story
from core.stories import word_diff
from hits.selectors import batch_rows
from hits.services import CrowdError


@role_required(ORGANIZER)
def workflow_detail(request, workflow_id):
    workflow = get_object_or_404(Workflow, pk=workflow_id)
    stages = list(workflow.stages.select_related("batch"))
    rows = {row["batch"].pk: row for row in batch_rows([stage.batch for stage in stages])}
    state = request.GET.get("state", "")
    chains = workflow.chains.all()
    if state in Chain.State.values:
        chains = chains.filter(state=state)
    return render(request, "chains/workflow.html", {
        "workflow": workflow, "stages": [(stage, rows.get(stage.batch_id)) for stage in stages],
        "found": statistics(workflow), "chains": chains[:500], "state": state, "states": Chain.State.choices})


@role_required(ORGANIZER)
def chain_detail(request, chain_id):
    chain = get_object_or_404(Chain.objects.select_related("workflow"), pk=chain_id)
    story = chain_story(chain)
    steps = []
    for step in chain.steps.select_related("worker__user", "stage", "assignment").order_by("pk"):
        row = {"step": step, "stage": step.stage.key if step.stage else "organizer"}
        if step.kind == Step.Kind.ENDING:
            row["diff"] = word_diff(story.ending, step.value)
        steps.append(row)
    return render(request, "chains/chain.html", {"chain": chain, "story": story, "steps": steps})


@role_required(ORGANIZER)
@require_POST
def chain_review(request, chain_id):
    chain = get_object_or_404(Chain, pk=chain_id)
    try:
        chain_decide(chain=chain, decision=request.POST.get("decision", ""), note=request.POST.get("note", "")[:2000],
                     user=request.user)
    except CrowdError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Chain {chain.pk}: {request.POST.get('decision')} recorded.")
    return redirect("chains:chain", chain_id=chain.pk)
