import { createProbeCatalogue } from '@monitor/probes';
import { BadRequestException } from '@nestjs/common';
import { readChannel, readSensor } from '../backup/backup-row-reader';
import { ChannelInputDto } from '../channels/dto/channel.dto';
import { readChannels, readSensors } from '../core/config/config-sections';
import { createValidationPipe } from '../core/http/validation';
import { SensorInputDto } from './dto/sensor.dto';
import { mergeDraft } from './sensor-input';

/**
 * The API, the configuration file and the backup reader share one definition of a sensor and of a
 * channel: fed the same item, each accepts it or refuses it naming the same field.
 * Channels of a sensor (ids, names or references) and parents are spelled differently by each
 * reader, so they are not part of the shared items.
 */

type Item = Record<string, unknown>;
/** null when accepted, else the field the error names. */
type Verdict = string | null;

const pipe = createValidationPipe();
const catalogue = createProbeCatalogue();
afterAll(() => catalogue.close());

async function apiVerdict(
  dto: new () => object,
  item: Item,
  finish?: (body: SensorInputDto) => void,
): Promise<Verdict> {
  try {
    const body = (await pipe.transform(item, { type: 'body', metatype: dto })) as SensorInputDto;
    finish?.(body);
    return null;
  } catch (error) {
    const message =
      error instanceof BadRequestException
        ? (error.getResponse() as { message: string }).message
        : (error as Error).message;
    return /^(\w+)/.exec(message)?.[1] ?? message;
  }
}

function configVerdict(read: (raw: unknown) => unknown, item: Item): Verdict {
  try {
    read([item]);
    return null;
  } catch (error) {
    return (
      /^invalid configuration: \w+\[0\]\.(\w+):/.exec((error as Error).message)?.[1] ??
      (error as Error).message
    );
  }
}

function backupVerdict(read: (index: number, row: unknown) => unknown, item: Item): Verdict {
  try {
    read(0, item);
    return null;
  } catch (error) {
    return /^\w+ row 0(?: \(".*"\))?: (\w+)/.exec((error as Error).message)?.[1] ?? (error as Error).message;
  }
}

const long = (n: number) => 'x'.repeat(n);

const SENSOR: Item = { name: 'web', type: 'http', target: 'http://127.0.0.1:8080/health' };
const SENSOR_CASES: [string, Item, Verdict][] = [
  ['the least a sensor needs', {}, null],
  ['every field at its lower bound', { interval: 1, retries: 1, reminder_every: 0 }, null],
  ['every field at its upper bound', { interval: 86400, retries: 100, reminder_every: 604800 }, null],
  ['the longest name, group and site', { name: long(200), group: long(200), site: long(200) }, null],
  ['tags and options', { tags: ['prod', long(100)], options: { timeout: 5 }, enabled: false }, null],
  ['interval 0', { interval: 0 }, 'interval'],
  ['interval 86401', { interval: 86401 }, 'interval'],
  ['interval 1.5', { interval: 1.5 }, 'interval'],
  ['interval "60"', { interval: '60' }, 'interval'],
  ['retries 0', { retries: 0 }, 'retries'],
  ['retries 101', { retries: 101 }, 'retries'],
  ['reminder_every -1', { reminder_every: -1 }, 'reminder_every'],
  ['reminder_every 604801', { reminder_every: 604801 }, 'reminder_every'],
  ['a name of 201 characters', { name: long(201) }, 'name'],
  ['a blank name', { name: '   ' }, 'name'],
  ['a name that is a number', { name: 5 }, 'name'],
  ['an unknown type', { type: 'smtp' }, 'type'],
  ['an empty target', { target: '' }, 'target'],
  ['type push and an empty target', { type: 'push', target: '' }, null],
  ['a target of 2001 characters', { target: `http://127.0.0.1/${long(1984)}` }, 'target'],
  ['a group of 201 characters', { group: long(201) }, 'group'],
  ['a site that is a list', { site: ['home'] }, 'site'],
  ['a tag of 101 characters', { tags: [long(101)] }, 'tags'],
  ['a blank tag', { tags: ['prod', ' '] }, 'tags'],
  ['tags that are a string', { tags: 'prod' }, 'tags'],
  ['enabled "yes"', { enabled: 'yes' }, 'enabled'],
  ['options that are a list', { options: [1] }, 'options'],
];

describe.each(SENSOR_CASES)('a sensor with %s', (_label, change, expected) => {
  const item = { ...SENSOR, ...change };

  it(`is ${expected === null ? 'accepted' : `refused naming ${expected}`} by the API, the configuration file and a backup`, async () => {
    const verdicts = {
      api: await apiVerdict(SensorInputDto, item, (body) => mergeDraft(null, body, catalogue)),
      config: configVerdict(readSensors, item),
      backup: backupVerdict(readSensor, item),
    };
    expect(verdicts).toEqual({ api: expected, config: expected, backup: expected });
  });
});

const CHANNEL: Item = { name: 'ops', type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' } };
const CHANNEL_CASES: [string, Item, Verdict][] = [
  ['the least a channel needs', {}, null],
  ['every field', { enabled: false, title_template: long(4000), body_template: long(16000) }, null],
  ['the longest name', { name: long(200) }, null],
  ['a name of 201 characters', { name: long(201) }, 'name'],
  ['a blank name', { name: ' ' }, 'name'],
  ['an unknown type', { type: 'sms' }, 'type'],
  ['a config that is a list', { config: ['a'] }, 'config'],
  ['enabled 1', { enabled: 1 }, 'enabled'],
  ['a title template of 4001 characters', { title_template: long(4001) }, 'title_template'],
  ['a body template of 16001 characters', { body_template: long(16001) }, 'body_template'],
  ['a body template that is a number', { body_template: 5 }, 'body_template'],
];

describe.each(CHANNEL_CASES)('a channel with %s', (_label, change, expected) => {
  const item = { ...CHANNEL, ...change };

  it(`is ${expected === null ? 'accepted' : `refused naming ${expected}`} by the API, the configuration file and a backup`, async () => {
    const verdicts = {
      api: await apiVerdict(ChannelInputDto, item),
      config: configVerdict(readChannels, item),
      backup: backupVerdict(readChannel, item),
    };
    expect(verdicts).toEqual({ api: expected, config: expected, backup: expected });
  });
});
