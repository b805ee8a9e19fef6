import { applyDecorators } from '@nestjs/common';
import { ApiProperty, getSchemaPath, IntersectionType } from '@nestjs/swagger';
import { Transform, Type, type TypeHelpOptions } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  getMetadataStorage,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  type ValidationArguments,
  ValidateIf,
} from 'class-validator';
import { SortedPagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { HTTP_URL, OutboundIvrOption, UniqueDigits, type IvrDigit } from '../../outbound-ivr/dto/ivr-option.dto.js';
import { TtsVoice, TtsVoiceField } from '../../speech/tts-voice.js';
import {
  FLOW_DEFAULTS,
  FLOW_STEP_TYPES,
  MAX_FLOW_STEPS,
  STEP_ID_PATTERN,
  type FlowDefinition,
  type FlowStep,
  type FlowStepType,
} from '../flow-definition.js';
import type { StoredFlow } from '../outbound-ivr-flows.service.js';
import { MACHINE_DETECTION, type MachineDetection } from '../../outbound-ivr/ivr-enums.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';

const StepIdField = ({ required = true } = {}) =>
  applyDecorators(
    ApiProperty({ required, pattern: STEP_ID_PATTERN.source, ...(required ? {} : { nullable: true }) }),
    IsString(),
    Matches(STEP_ID_PATTERN, { message: '$property must be 1-64 letters, digits, _ or -' }),
  );
const OptionalStepIdField = () => applyDecorators(IsOptional(), StepIdField({ required: false }));

/** The prompt fields every step type shares. */
abstract class PromptProps {
  /** Absolute http(s) URL of the audio to play, e.g. one returned by Upload Audio File. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) audioFileUrl?: string | null;
  /** Text to speak instead of a file, up to 5000 characters. */
  @IsOptional() @IsString() @Matches(/\S/, { message: 'ttsText must not be blank' }) @MaxLength(5000) ttsText?: string | null;
  @TtsVoiceField() ttsVoice?: TtsVoice;
}

/** Play: exactly one of `audioFileUrl` / `ttsText`, then `nextStepId`, or hang up when it is absent. */
export class OutboundIvrPlayStepProps extends PromptProps {
  /** The step after this one; absent or null hangs up after playing. */
  @OptionalStepIdField() nextStepId?: string | null;
}

/** A key of a flow question, and where the call goes when it is pressed. */
export class OutboundIvrFlowOption extends OutboundIvrOption {
  /** The step after this key; absent or null ends the call after the response file. */
  @OptionalStepIdField() nextStepId?: string | null;
}

/**
 * Question: exactly one of `audioFileUrl` / `ttsText`, then one digit is gathered. Silence or an
 * invalid digit asks again up to `maxAudioRetries` more times; then the call goes to
 * `noInputStepId` / `invalidInputStepId`, or ends with NoInput / InvalidInput when they are absent.
 */
export class OutboundIvrQuestionStepProps extends PromptProps {
  /** 1 to 12 keys, digits 0-9, * and # without repeats. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(12)
  @UniqueDigits()
  @ValidateNestedObject({ each: true })
  @Type(() => OutboundIvrFlowOption)
  options: OutboundIvrFlowOption[];
  /** 0 to 5, default 2. */
  @IsOptionalNotNull() @IsInt() @Min(0) @Max(5) maxAudioRetries?: number;
  /** 1000 to 30000, default 6000. */
  @IsOptionalNotNull() @IsInt() @Min(1000) @Max(30000) inputTimeoutMs?: number;
  /** Where the call goes after silence past the retries; absent or null ends it with NoInput. */
  @OptionalStepIdField() noInputStepId?: string | null;
  /** Where the call goes after invalid keys past the retries; absent or null ends it with InvalidInput. */
  @OptionalStepIdField() invalidInputStepId?: string | null;
}

/** Hangup: hangs up, after an optional goodbye (at most one of `audioFileUrl` / `ttsText`). */
export class OutboundIvrHangupStepProps extends PromptProps {}

const PROPS_BY_TYPE = {
  Play: OutboundIvrPlayStepProps,
  Question: OutboundIvrQuestionStepProps,
  Hangup: OutboundIvrHangupStepProps,
} as const;

/** Every property any step type takes: the shape incoming `props` keys are case-folded against. */
class AnyStepProps extends IntersectionType(OutboundIvrPlayStepProps, OutboundIvrQuestionStepProps) {}

/** `"question"` → `"Question"`; anything else is left for IsIn to refuse. */
function toStepType(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return FLOW_STEP_TYPES.find((type) => type.toLowerCase() === value.trim().toLowerCase()) ?? value;
}

/**
 * The class `props` becomes, chosen by the step's `type`. Without a step (the case-insensitive
 * keys pipe asks for the nested type up front) it is the union of every step type's properties.
 */
function propsClassOf(options?: TypeHelpOptions): new () => PromptProps {
  if (!options) return AnyStepProps;
  const type = toStepType((options.object as { type?: unknown }).type);
  return typeof type === 'string' && Object.hasOwn(PROPS_BY_TYPE, type) ? PROPS_BY_TYPE[type as FlowStepType] : OutboundIvrHangupStepProps;
}

const propertyNames = (target: new () => unknown): Set<string> =>
  new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(target, '', true, false)
      .map((m) => m.propertyName),
  );
const ANY_STEP_PROPERTIES = propertyNames(AnyStepProps);
const PROPERTIES_BY_TYPE = new Map(FLOW_STEP_TYPES.map((type) => [type, propertyNames(PROPS_BY_TYPE[type])]));

/** Properties of other step types sent in this step's `props` (e.g. `options` on a Play step). */
function misplacedProperties(step: { type?: unknown }, props: unknown): string[] {
  const own = PROPERTIES_BY_TYPE.get(step.type as FlowStepType);
  if (!own || typeof props !== 'object' || props === null) return [];
  return Object.keys(props).filter((key) => ANY_STEP_PROPERTIES.has(key) && !own.has(key));
}

/** Refuses `props` that carry another step type's properties rather than silently dropping them. */
function PropsFitStepType(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'propsFitStepType',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        // Runs before the nested validation strips the unknown properties.
        validate: (value: unknown, args: ValidationArguments) => misplacedProperties(args.object, value).length === 0,
        defaultMessage: (args: ValidationArguments) => {
          const step = args.object as { id?: unknown; type?: unknown };
          return `Step '${String(step.id)}': a ${String(step.type)} step does not take ${misplacedProperties(step, args.value).join(', ')}.`;
        },
      },
    });
}

export class OutboundIvrStep {
  /** Unique within the flow: 1-64 letters, digits, _ or -. */
  @StepIdField() id: string;
  @ApiProperty({ enum: FLOW_STEP_TYPES, enumName: 'OutboundIvrStepType', description: 'Play, Question or Hangup (any case).' })
  @Transform(({ value }) => toStepType(value))
  @IsIn(FLOW_STEP_TYPES, { message: 'type must be one of Play, Question, Hangup' })
  type: FlowStepType;
  @ApiProperty({
    // anyOf: a Hangup's props also read as a Play's; `type` decides which applies.
    anyOf: Object.values(PROPS_BY_TYPE).map((props) => ({ $ref: getSchemaPath(props) })),
    description:
      'Depends on `type`: OutboundIvrPlayStepProps for Play, OutboundIvrQuestionStepProps for Question, OutboundIvrHangupStepProps for Hangup. Properties of another step type are refused.',
  })
  @PropsFitStepType()
  @ValidateNestedObject()
  @Type(propsClassOf)
  props: OutboundIvrPlayStepProps | OutboundIvrQuestionStepProps | OutboundIvrHangupStepProps;
}

/** Create or replace a flow: its steps form a graph from `startStepId`, every step reachable. */
export class SaveOutboundIvrFlow {
  @IsString() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(200) name: string;
  @IsOptional() @IsString() @MaxLength(1000) description?: string | null;
  /** Id of the first step. */
  @StepIdField() startStepId: string;
  /** 1 to 100 steps. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FLOW_STEPS)
  @ValidateNestedObject({ each: true })
  @Type(() => OutboundIvrStep)
  steps: OutboundIvrStep[];
  /**
   * What the flow's calls do when an answering machine picks up (API.md §14): Off, Hangup, or
   * LeaveMessage (the voicemail after the beep, then hang up). A call's own `machineDetection`
   * overrides it.
   */
  @ApiProperty({ required: false, enum: MACHINE_DETECTION, enumName: 'MachineDetection', default: 'Off' })
  @IsOptionalNotNull()
  @IsIn(MACHINE_DETECTION, { message: `machineDetection must be one of ${MACHINE_DETECTION.join(', ')}` })
  machineDetection?: MachineDetection;
  /** LeaveMessage: the audio left on the machine. Exactly one of this and voicemailTtsText. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) voicemailAudioFileUrl?: string | null;
  /** LeaveMessage: text spoken as the voicemail. */
  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'voicemailTtsText must not be blank' })
  @MaxLength(5000)
  voicemailTtsText?: string | null;
  /** Record the flow's calls (API.md §16); a call's own `record` overrides it. Absent: the channel's `recordCalls`. */
  @ApiProperty({ required: false, type: Boolean, nullable: true, example: true })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsBoolean()
  record?: boolean | null;
}

export class ListOutboundIvrFlowsQueryDto extends SortedPagedRequestDto {
  /** Part of the name, any case. */
  @IsOptionalNotNull() @IsString() @MaxLength(200) name?: string;
}

export class OutboundIvrFlow {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  startStepId: string;
  /** With defaults applied: absent optional values are null. */
  steps: OutboundIvrStep[];
  @ApiProperty({ enum: MACHINE_DETECTION, enumName: 'MachineDetection' }) machineDetection: MachineDetection;
  voicemailAudioFileUrl: string | null;
  voicemailTtsText: string | null;
  /** Whether the flow's calls are recorded; null: as the channel says. */
  @ApiProperty({ type: Boolean, nullable: true }) record: boolean | null;
  /** 1 on creation, incremented by every update; a running call keeps the version it started with. */
  version: number;
  /** ISO 8601 with offset (UTC). */
  creationTime: string;
  /** ISO 8601 with offset (UTC). */
  lastModificationTime: string;

  static from({ flow, definition }: StoredFlow): OutboundIvrFlow {
    return {
      id: flow.id,
      workspaceId: flow.workspaceId,
      name: flow.name,
      description: flow.description,
      startStepId: definition.startStepId,
      steps: definition.steps,
      machineDetection: definition.machineDetection ?? 'Off',
      voicemailAudioFileUrl: definition.voicemailAudioFileUrl ?? null,
      voicemailTtsText: definition.voicemailTtsText ?? null,
      record: definition.record ?? null,
      version: flow.version,
      creationTime: TimestampFormat.utc(flow.creationTime),
      lastModificationTime: TimestampFormat.utc(flow.lastModificationTime),
    };
  }
}

/** The validated request as the plain definition a call runs, defaults applied (not yet checked as a graph). */
export function toFlowDefinition(input: SaveOutboundIvrFlow): FlowDefinition {
  return {
    startStepId: input.startStepId,
    steps: input.steps.map(toFlowStep),
    machineDetection: input.machineDetection ?? 'Off',
    voicemailAudioFileUrl: input.voicemailAudioFileUrl ?? null,
    voicemailTtsText: input.voicemailTtsText ?? null,
    record: input.record ?? null,
  };
}

function toFlowStep(step: OutboundIvrStep): FlowStep {
  const prompt = {
    audioFileUrl: step.props.audioFileUrl ?? null,
    ttsText: step.props.ttsText ?? null,
    ttsVoice: step.props.ttsVoice ?? FLOW_DEFAULTS.ttsVoice,
  };
  switch (step.type) {
    case 'Play': {
      const props = step.props as OutboundIvrPlayStepProps;
      return { id: step.id, type: 'Play', props: { ...prompt, nextStepId: props.nextStepId ?? null } };
    }
    case 'Question': {
      const props = step.props as OutboundIvrQuestionStepProps;
      return {
        id: step.id,
        type: 'Question',
        props: {
          ...prompt,
          options: props.options.map((option) => ({
            digit: option.digit as IvrDigit,
            description: option.description,
            nextStepId: option.nextStepId ?? null,
            responseMessageFileUrl: option.responseMessageFileUrl ?? null,
          })),
          maxAudioRetries: props.maxAudioRetries ?? FLOW_DEFAULTS.maxAudioRetries,
          inputTimeoutMs: props.inputTimeoutMs ?? FLOW_DEFAULTS.inputTimeoutMs,
          noInputStepId: props.noInputStepId ?? null,
          invalidInputStepId: props.invalidInputStepId ?? null,
        },
      };
    }
    case 'Hangup':
      return { id: step.id, type: 'Hangup', props: prompt };
  }
}
