/**
 * Flink's TopNFunctionTestBase scenarios against each strategy, as its three subclasses
 * (AppendOnlyTopNFunctionTest, RetractableTopNFunctionTest, UpdatableTopNFunctionTest) do.
 */
import { describeTopNBaseScenarios } from './top-n-scenarios.ts';

describeTopNBaseScenarios('AppendFast');
describeTopNBaseScenarios('Retract');
// UpdatableTopNFunctionTest overrides testOutputRankNumberWithVariableRankRange with update input.
describeTopNBaseScenarios('UpdateFast', { overridesVariableRankRange: true });
