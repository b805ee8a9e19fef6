import type { ValidationErrorItem } from '../common/errors/domain-error.js';
import type { FlowDefinition, FlowStep } from './flow-definition.js';

/** A step id named by another step, with the request member that names it. */
interface StepReference {
  targetId: string;
  member: string;
  label: string;
}

/**
 * What is wrong with a flow as a graph, each naming the step and the request member: repeated
 * step ids, prompts without exactly one of audioFileUrl / ttsText, a startStepId or a reference
 * that points nowhere, steps that cannot be reached from the start (once every reference resolves).
 * Empty when the flow is sound.
 * Loops are allowed: a run is capped by the call worker, not here.
 */
export function findFlowIssues(definition: FlowDefinition): ValidationErrorItem[] {
  const issues: ValidationErrorItem[] = [];
  const indexById = new Map<string, number>();
  definition.steps.forEach((step, index) => {
    if (indexById.has(step.id)) issues.push(issue(`Step '${step.id}' is defined more than once.`, `steps[${index}].id`));
    else indexById.set(step.id, index);
  });
  let dangling = false;
  definition.steps.forEach((step, index) => {
    issues.push(...promptIssues(step, index));
    for (const ref of referencesOf(step, index)) {
      if (indexById.has(ref.targetId)) continue;
      dangling = true;
      issues.push(issue(`Step '${step.id}': ${ref.label} '${ref.targetId}' does not exist.`, ref.member));
    }
  });
  const start = definition.startStepId;
  if (!indexById.has(start)) {
    issues.push(issue(`startStepId '${start}' does not exist.`, 'startStepId'));
    return issues;
  }
  // A broken link cuts off what lies behind it: judge reachability once every link resolves.
  if (dangling) return issues;
  const reached = reachableFrom(start, definition.steps, indexById);
  definition.steps.forEach((step, index) => {
    if (indexById.get(step.id) === index && !reached.has(step.id)) {
      issues.push(issue(`Step '${step.id}' cannot be reached from startStepId '${start}'.`, `steps[${index}].id`));
    }
  });
  return issues;
}

function issue(message: string, ...members: string[]): ValidationErrorItem {
  return { message, members };
}

/** Play and Question say something: exactly one source. A Hangup's goodbye is optional: at most one. */
function promptIssues(step: FlowStep, index: number): ValidationErrorItem[] {
  const { audioFileUrl, ttsText } = step.props;
  const members = [`steps[${index}].props.audioFileUrl`, `steps[${index}].props.ttsText`];
  if (audioFileUrl !== null && ttsText !== null) {
    return [issue(`Step '${step.id}': give audioFileUrl or ttsText, not both.`, ...members)];
  }
  if (step.type !== 'Hangup' && audioFileUrl === null && ttsText === null) {
    return [issue(`Step '${step.id}': a ${step.type} step needs audioFileUrl or ttsText.`, ...members)];
  }
  return [];
}

function referencesOf(step: FlowStep, index: number): StepReference[] {
  const at = `steps[${index}].props`;
  const refs: Array<StepReference | null> = [];
  const ref = (targetId: string | null, member: string, label = member): StepReference | null =>
    targetId === null ? null : { targetId, member: `${at}.${member}`, label };
  switch (step.type) {
    case 'Play':
      refs.push(ref(step.props.nextStepId, 'nextStepId'));
      break;
    case 'Question':
      step.props.options.forEach((option, i) =>
        refs.push(ref(option.nextStepId, `options[${i}].nextStepId`, `option '${option.digit}' nextStepId`)),
      );
      refs.push(ref(step.props.noInputStepId, 'noInputStepId'), ref(step.props.invalidInputStepId, 'invalidInputStepId'));
      break;
    case 'Hangup':
      break;
  }
  return refs.filter((r): r is StepReference => r !== null);
}

function reachableFrom(start: string, steps: FlowStep[], indexById: Map<string, number>): Set<string> {
  const reached = new Set([start]);
  const pending = [start];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    const index = indexById.get(id);
    if (index === undefined) continue;
    for (const { targetId } of referencesOf(steps[index], index)) {
      if (!reached.has(targetId)) {
        reached.add(targetId);
        pending.push(targetId);
      }
    }
  }
  return reached;
}
