import type { TemplateDefinitionDto } from '../dto/template-definition.dto.js';

/**
 * The templates the demo seed puts on its sandbox channel, so that the Send Template examples of the
 * Swagger UI work when pressed "Execute". Shaped as the Cloud API lists them (`message_templates`).
 */
export const DEMO_TEMPLATES: TemplateDefinitionDto[] = [
  {
    name: 'order_update',
    language: 'en',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [
      { type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.', example: { body_text: [['Sara', 'A-1042']] } },
      { type: 'FOOTER', text: 'Reply STOP to opt out' },
      { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track order', url: 'https://shop.example.com/orders/{{1}}' }] },
    ],
  },
  {
    name: 'appointment_reminder',
    language: 'en',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Your appointment with {{1}}', example: { header_text: ['Dr. Haddad'] } },
      { type: 'BODY', text: 'Hi {{1}}, we will see you {{2}}.', example: { body_text: [['Sara', 'Tuesday 10:30']] } },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Confirm' },
          { type: 'QUICK_REPLY', text: 'Reschedule' },
        ],
      },
    ],
  },
];
