/**
 * Helpers over a synthesized CloudFormation template for the infra tests: logical ids by type,
 * the resources a function's IAM policies name, and Fn::Join-ed strings flattened for search.
 */
import type { Template } from 'aws-cdk-lib/assertions';

/** A resource of the template. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

/** The template's resources. */
export function resourcesOf(template: Template): Record<string, CfnResource> {
  return (template.toJSON() as { Resources: Record<string, CfnResource> }).Resources;
}

/** Logical ids of the resources of `type`. */
export function idsOfType(template: Template, type: string): string[] {
  return Object.entries(resourcesOf(template))
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);
}

/** Every logical id a value refers to (Ref, Fn::GetAtt), recursively. */
export function referencedIds(value: unknown): Set<string> {
  const ids = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      for (const [key, inner] of Object.entries(v)) {
        if (key === 'Ref' && typeof inner === 'string') ids.add(inner);
        else if (key === 'Fn::GetAtt' && Array.isArray(inner) && typeof inner[0] === 'string') ids.add(inner[0]);
        else walk(inner);
      }
    }
  };
  walk(value);
  return ids;
}

/** A policy statement as CloudFormation holds it. */
export interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Effect: string;
}

/** The statements of every inline policy attached to the role of the function `functionId`. */
export function statementsOfFunction(template: Template, functionId: string): Statement[] {
  const resources = resourcesOf(template);
  const roleId = [...referencedIds(resources[functionId]?.Properties?.Role)][0];
  if (roleId === undefined) throw new Error(`function ${functionId} has no role`);
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && referencedIds(r.Properties?.Roles).has(roleId))
    .flatMap((r) => (r.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** The logical ids of the resources of `type` that the function's policies name. */
export function policyTargetsOfType(template: Template, functionId: string, type: string): Set<string> {
  const resources = resourcesOf(template);
  const named = new Set<string>();
  for (const statement of statementsOfFunction(template, functionId)) {
    for (const id of referencedIds(statement.Resource)) if (resources[id]?.Type === type) named.add(id);
  }
  return named;
}

/** The function whose FLAMBDA_STAGE_ID is `stageId`. */
export function functionOfStage(template: Template, stageId: string): string {
  const found = Object.entries(resourcesOf(template)).find(
    ([, r]) => r.Type === 'AWS::Lambda::Function' && (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.FLAMBDA_STAGE_ID === stageId,
  );
  if (found === undefined) throw new Error(`no function runs ${stageId}`);
  return found[0];
}

/** The environment variables of a function. */
export function environmentOf(template: Template, functionId: string): Record<string, unknown> {
  return ((resourcesOf(template)[functionId]?.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {});
}
